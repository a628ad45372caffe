import { describe, expect, it } from 'vitest';

import { ApiError, NetworkError } from '@/lib/api-client';

import { countryOptions, FOREIGN_COUNTRY_CODES } from './countries';
import {
  EMPTY_IDENTITY,
  EMPTY_PERSONAL_DATA,
  identityBody,
  identityForm,
  IDENTITY_FIELDS,
  isValidCardSerial,
  isValidForeignNumber,
  PERSONAL_FIELDS,
  REGISTRATION_FAILED,
  registrationFailure,
  validateIdentity,
  validatePersonalData,
} from './registration-rules';

const TODAY = { year: 2026, month: 11, day: 21 };

function apiError(status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
  return new ApiError(status, '/api/registration', { code, message, ...extra });
}

describe('the identity of step 1', () => {
  it('accepts the card serial with 9 digits or an A and 9 digits, dots allowed', () => {
    expect(isValidCardSerial('100.123.456')).toBe(true);
    expect(isValidCardSerial('a100123456')).toBe(true);
    expect(isValidCardSerial('10012345')).toBe(false);
    expect(isValidCardSerial('B100123456')).toBe(false);
  });

  it('accepts a foreign number of 5 to 20 letters and digits with at least one letter', () => {
    expect(isValidForeignNumber('p1234567')).toBe(true);
    expect(isValidForeignNumber('12345678')).toBe(false);
    expect(isValidForeignNumber('AB1')).toBe(false);
    expect(isValidForeignNumber('A'.repeat(21))).toBe(false);
  });

  it('refuses Chile and anything outside the ISO list as the issuing country', () => {
    const base = { ...EMPTY_IDENTITY, kind: 'foreign' as const, foreignType: 'PASSPORT' as const, foreignNumber: 'P1234567' };
    expect(validateIdentity({ ...base, country: 'AR' })).toEqual({});
    expect(validateIdentity({ ...base, country: 'CL' }).country).toBeDefined();
    expect(validateIdentity({ ...base, country: 'XX' }).country).toBeDefined();
    expect(FOREIGN_COUNTRY_CODES).not.toContain('CL');
  });

  it('names the countries in Spanish, sorted as Chile sorts them', () => {
    const options = countryOptions();
    expect(options.find((option) => option.code === 'DE')?.name).toBe('Alemania');
    const names = options.map((option) => option.name);
    expect(names).toEqual([...names].sort(new Intl.Collator('es-CL').compare));
  });

  it('builds the body the gateway expects and reads it back from the view', () => {
    const form = { ...EMPTY_IDENTITY, rut: '123456785', cardSerial: ' a100123456 ' };
    const body = identityBody(form);
    expect(body).toEqual({ documentType: 'RUT', rut: '12.345.678-5', documentNumber: 'A100123456' });
    expect(identityForm(body)).toMatchObject({ kind: 'rut', rut: '12.345.678-5', cardSerial: 'A100123456' });
  });
});

describe('the personal data of step 2', () => {
  it('requires everything but the mother surname', () => {
    const errors = validatePersonalData(EMPTY_PERSONAL_DATA, [1, 2], TODAY);
    expect(Object.keys(errors).sort()).toEqual(['birthDate', 'email', 'genderId', 'lastName', 'name', 'phoneNumber']);
  });

  it('refuses someone who turns 18 tomorrow and accepts them on the day', () => {
    const values = {
      ...EMPTY_PERSONAL_DATA,
      name: 'Nora',
      lastName: 'Soto',
      phoneNumber: '912345678',
      genderId: 1,
      email: 'nora@correo.cl',
    };
    expect(validatePersonalData({ ...values, birthDate: '2008-11-22' }, [1], TODAY).birthDate).toBe(
      'Debes ser mayor de 18 años para registrarte.',
    );
    expect(validatePersonalData({ ...values, birthDate: '2008-11-21' }, [1], TODAY)).toEqual({});
  });
});

describe('where a gateway failure is shown', () => {
  it('puts a named field under it and a code-implied field too', () => {
    expect(registrationFailure(apiError(400, 'ERR_INVALID_ARGUMENT', 'mal.', { field: 'email' }), PERSONAL_FIELDS)).toEqual({
      kind: 'field',
      field: 'email',
      message: 'Mal.',
    });
    expect(registrationFailure(apiError(400, 'ERR_INVALID_RUT', 'El RUT ingresado no es válido.'), IDENTITY_FIELDS)).toMatchObject({
      kind: 'field',
      field: 'rut',
    });
  });

  it('shows the already-registered code with its action instead of under a field', () => {
    const action = { url: '/recuperar-contrasena', urlName: 'Recuperar contraseña' };
    expect(
      registrationFailure(apiError(409, 'ERR_RUT_ALREADY_REGISTERED', 'Ya está.', { field: 'rut', action }), IDENTITY_FIELDS),
    ).toEqual({ kind: 'general', display: { message: 'Ya está.', action } });
  });

  it('sends the member back to step 1 when the flow expired', () => {
    expect(registrationFailure(apiError(404, 'ERR_REGISTRATION_EXPIRED', 'Expiró.'), PERSONAL_FIELDS).kind).toBe('expired');
  });

  it('uses its own text for no answer and for any 5xx', () => {
    const failed = { kind: 'general', display: { message: REGISTRATION_FAILED } };
    expect(registrationFailure(new NetworkError('/api/registration', null), IDENTITY_FIELDS)).toEqual(failed);
    expect(registrationFailure(apiError(503, 'ERR_UNAVAILABLE', 'No disponible.'), IDENTITY_FIELDS)).toEqual(failed);
  });
});
