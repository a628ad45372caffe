import { describe, expect, it } from 'vitest';

import { ApiError, NetworkError } from '@/lib/api-client';

import {
  CODE_MESSAGE,
  endsRecovery,
  RECOVERY_GENERIC_ERROR,
  recoveryErrorToDisplay,
  resetFieldFailure,
  userFieldFailure,
  validateReset,
} from './recovery-rules';

const RESET_URL = '/api/password-recovery/reset';

function apiError(status: number, code: string, message: string, field?: string) {
  return new ApiError(status, RESET_URL, { code, message, ...(field ? { field } : {}) });
}

describe('validateReset', () => {
  it('accepts six digits and a password of 8 to 64 characters', () => {
    expect(validateReset('123456', 'una frase larga')).toEqual({});
    expect(validateReset('123456', 'x'.repeat(64))).toEqual({});
  });

  it('asks for exactly six digits', () => {
    expect(validateReset('', 'una frase larga')).toEqual({ code: CODE_MESSAGE });
    expect(validateReset('12345', 'una frase larga')).toEqual({ code: CODE_MESSAGE });
    expect(validateReset('12345a', 'una frase larga')).toEqual({ code: CODE_MESSAGE });
  });

  it("uses the gateway's length messages, counting characters rather than UTF-16 units", () => {
    expect(validateReset('123456', '').newPassword).toBe('La contraseña debe tener al menos 8 caracteres.');
    expect(validateReset('123456', '😀😀😀😀').newPassword).toBe('La contraseña debe tener al menos 8 caracteres.');
    expect(validateReset('123456', 'x'.repeat(65)).newPassword).toBe('La contraseña puede tener hasta 64 caracteres.');
  });
});

describe('where a gateway failure is shown', () => {
  it('puts ERR_OTP_INVALID under the code and ERR_WEAK_PASSWORD under the new password', () => {
    expect(resetFieldFailure(apiError(422, 'ERR_OTP_INVALID', 'el código ingresado no es correcto.'))).toEqual({
      field: 'code',
      message: 'El código ingresado no es correcto.',
    });
    expect(
      resetFieldFailure(apiError(422, 'ERR_WEAK_PASSWORD', 'Esa contraseña es muy común.', 'newPassword')),
    ).toEqual({ field: 'newPassword', message: 'Esa contraseña es muy común.' });
    expect(resetFieldFailure(apiError(400, 'ERR_INVALID_ARGUMENT', 'Revisa el código.', 'code'))?.field).toBe('code');
  });

  it('keeps every other failure out of the fields', () => {
    expect(resetFieldFailure(apiError(503, 'ERR_UNAVAILABLE', 'No disponible.'))).toBeNull();
    expect(resetFieldFailure(apiError(422, 'ERR_OTP_EXPIRED', 'El código expiró.'))).toBeNull();
    expect(resetFieldFailure(new NetworkError(RESET_URL, new Error('offline')))).toBeNull();
  });

  it('ends the recovery only on an expired code or too many attempts', () => {
    expect(endsRecovery(apiError(422, 'ERR_OTP_EXPIRED', 'El código expiró.'))).toBe(true);
    expect(endsRecovery(apiError(429, 'ERR_OTP_TOO_MANY_ATTEMPTS', 'Superaste el número de intentos.'))).toBe(true);
    expect(endsRecovery(apiError(422, 'ERR_OTP_INVALID', 'No es correcto.'))).toBe(false);
    expect(endsRecovery(apiError(429, 'ERR_OTP_RESEND_COOLDOWN', 'Espera un momento.'))).toBe(false);
  });

  it('puts step 1 failures with field user, or an invalid RUT, under the user field', () => {
    expect(userFieldFailure(apiError(400, 'ERR_INVALID_RUT', 'el RUT ingresado no es válido.'))).toBe(
      'El RUT ingresado no es válido.',
    );
    expect(userFieldFailure(apiError(400, 'ERR_INVALID_ARGUMENT', 'Ingresa tu RUT.', 'user'))).toBe('Ingresa tu RUT.');
    expect(userFieldFailure(apiError(400, 'ERR_RECAPTCHA', 'No pudimos verificar que no eres un robot.'))).toBeNull();
  });

  it("shows the server's message capitalised, and the generic text with no answer or a 500", () => {
    expect(recoveryErrorToDisplay(apiError(429, 'ERR_TOO_MANY_ATTEMPTS', 'demasiados intentos.')).message).toBe(
      'Demasiados intentos.',
    );
    expect(recoveryErrorToDisplay(apiError(500, 'ERR_INTERNAL', 'Ocurrió un error.')).message).toBe(
      RECOVERY_GENERIC_ERROR,
    );
    expect(recoveryErrorToDisplay(new NetworkError(RESET_URL, new Error('offline'))).message).toBe(
      RECOVERY_GENERIC_ERROR,
    );
  });
});
