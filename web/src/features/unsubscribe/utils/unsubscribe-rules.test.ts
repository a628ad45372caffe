import { describe, expect, it } from 'vitest';

import { ApiError, NetworkError } from '@/lib/api-client';

import {
  alreadyUnsubscribedText,
  farewellText,
  UNSUBSCRIBE_FAILED,
  unsubscribeFailure,
  validateReason,
} from './unsubscribe-rules';

const OTHER = { id: 99, label: 'Otro motivo', requiresText: true };
const UNUSED = { id: 1, label: 'No uso los beneficios del club', requiresText: false };

describe('the unsubscribe rules', () => {
  it('dates the messages on the calendar day in Chile', () => {
    expect(alreadyUnsubscribedText('2026-11-21T15:04:05Z')).toBe('Ya te diste de baja de Mi Club el 21 de noviembre de 2026.');
    // 01:30 UTC on the 22nd is still the 21st in Santiago.
    expect(farewellText('2026-11-22T01:30:00Z')).toMatch(/^Te diste de baja de Mi Club el 21 de noviembre de 2026\./);
  });

  it('asks for a reason, and for 1 to 500 characters when the reason needs a text', () => {
    expect(validateReason(undefined, '')).toEqual({ reasonId: 'Elige un motivo.' });
    expect(validateReason(UNUSED, '')).toEqual({});
    expect(validateReason(OTHER, '   ').reasonText).toBe('Cuéntanos el motivo.');
    expect(validateReason(OTHER, 'ñ'.repeat(500))).toEqual({});
    expect(validateReason(OTHER, 'ñ'.repeat(501)).reasonText).toBe('Puedes escribir hasta 500 caracteres.');
  });

  it('puts a wrong current password under its field, with or without the field named', () => {
    const named = new ApiError(422, '/api/unsubscribe/validate', {
      code: 'ERR_WRONG_PASSWORD',
      message: 'La contraseña actual no es correcta.',
      field: 'currentPassword',
    });
    const implied = new ApiError(422, '/api/unsubscribe', {
      code: 'ERR_WRONG_PASSWORD',
      message: 'La contraseña actual no es correcta.',
    });
    for (const error of [named, implied]) {
      expect(unsubscribeFailure(error)).toEqual({
        kind: 'field',
        field: 'currentPassword',
        message: 'La contraseña actual no es correcta.',
      });
    }
  });

  it('tells a mismatch from a field and from any other failure', () => {
    const mismatch = new ApiError(422, '/api/unsubscribe/validate', {
      code: 'ERR_IDENTITY_MISMATCH',
      message: 'Los datos ingresados no coinciden con los de tu cuenta.',
    });
    expect(unsubscribeFailure(mismatch)).toEqual({
      kind: 'mismatch',
      display: { message: 'Los datos ingresados no coinciden con los de tu cuenta.' },
    });
    const field = new ApiError(400, '/api/unsubscribe', { code: 'ERR_INVALID_ARGUMENT', message: 'muy largo.', field: 'reasonText' });
    expect(unsubscribeFailure(field)).toEqual({ kind: 'field', field: 'reasonText', message: 'Muy largo.' });
    // The step-up's password throttle (429, Retry-After) is told in the gateway's words.
    const throttled = new ApiError(429, '/api/unsubscribe', { code: 'ERR_TOO_MANY_ATTEMPTS', message: 'Espera.' });
    expect(unsubscribeFailure(throttled)).toEqual({ kind: 'general', display: { message: 'Espera.' } });
    const unknown = new ApiError(409, '/api/unsubscribe', { code: 'ERR_SOMETHING_NEW', message: 'Otra cosa.' });
    expect(unsubscribeFailure(unknown)).toEqual({ kind: 'general', display: { message: UNSUBSCRIBE_FAILED } });
    expect(unsubscribeFailure(new NetworkError('/api/unsubscribe', null))).toEqual({
      kind: 'general',
      display: { message: UNSUBSCRIBE_FAILED },
    });
  });
});
