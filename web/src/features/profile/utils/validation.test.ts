import { describe, expect, it } from 'vitest';

import type { ProfileUpdate } from '../api/update-profile';

import { isValidEmail, MESSAGES, normalizeChileanMobile, validatePasswordChange, validateProfile } from './validation';

const TODAY = { year: 2026, month: 11, day: 21 };
const GENDERS = [1, 2, 3, 6, 7];

const valid: ProfileUpdate = {
  email: 'ana@example.cl',
  name: 'Ana María',
  last_name: 'González',
  mother_surname: "O'Higgins-Pérez",
  phone_number: '+56 9 1234 5678',
  birth_date: '1990-05-17',
  gender_id: 1,
};

function errorsOf(change: Partial<ProfileUpdate>) {
  return validateProfile({ ...valid, ...change }, GENDERS, TODAY);
}

describe('the profile checks of docs/api.md', () => {
  it('accept a complete valid profile and one with every optional field cleared', () => {
    expect(errorsOf({})).toEqual({});
    expect(errorsOf({ mother_surname: '', phone_number: '', birth_date: '', gender_id: 0 })).toEqual({});
  });

  it('want an address with one @, a dot in the domain and at most 254 characters', () => {
    for (const email of ['', 'ana', 'ana@', '@example.cl', 'ana@example', 'a@b@example.cl', 'a b@example.cl', 'ana@x..cl']) {
      expect(isValidEmail(email), email).toBe(false);
    }
    expect(isValidEmail(`${'a'.repeat(244)}@example.cl`)).toBe(false);
    expect(isValidEmail(`${'a'.repeat(243)}@example.cl`)).toBe(true);
    expect(errorsOf({ email: 'ana@example' })).toEqual({ email: 'Ingresa un correo electrónico válido.' });
  });

  it('ask for the name and the paternal surname when empty', () => {
    expect(errorsOf({ name: '  ', last_name: '' })).toEqual({
      name: 'Ingresa tu nombre.',
      last_name: 'Ingresa tu apellido paterno.',
    });
  });

  it('allow letters with accents, spaces, apostrophes and hyphens only, up to 50', () => {
    expect(errorsOf({ name: 'Ñandú José-Luis' })).toEqual({});
    expect(errorsOf({ name: 'Ana2' })).toEqual({ name: MESSAGES.nameCharacters });
    expect(errorsOf({ last_name: 'González!' })).toEqual({ last_name: 'Usa solo letras, espacios, apóstrofes o guiones.' });
    expect(errorsOf({ mother_surname: 'Pérez.' })).toEqual({ mother_surname: MESSAGES.nameCharacters });
    expect(errorsOf({ name: 'a'.repeat(50) })).toEqual({});
    expect(errorsOf({ name: 'a'.repeat(51) })).toEqual({ name: MESSAGES.nameCharacters });
  });

  it('take a Chilean mobile in its three spellings, spaces ignored', () => {
    expect(normalizeChileanMobile('+56912345678')).toBe('+56912345678');
    expect(normalizeChileanMobile('56 9 1234 5678')).toBe('+56912345678');
    expect(normalizeChileanMobile('9 1234 5678')).toBe('+56912345678');
    for (const phone of ['+56212345678', '912345678901', '8 1234 5678', '+54912345678', '9-1234-5678']) {
      expect(errorsOf({ phone_number: phone }), phone).toEqual({
        phone_number: 'Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.',
      });
    }
  });

  it('want a real birth date of someone between 18 and 120 years old', () => {
    expect(errorsOf({ birth_date: '2008-11-21' })).toEqual({});
    expect(errorsOf({ birth_date: '2008-11-22' })).toEqual({ birth_date: 'Debes ser mayor de 18 años.' });
    expect(errorsOf({ birth_date: '2030-01-01' })).toEqual({ birth_date: 'Ingresa una fecha de nacimiento válida.' });
    expect(errorsOf({ birth_date: '1900-01-01' })).toEqual({ birth_date: 'Ingresa una fecha de nacimiento válida.' });
    expect(errorsOf({ birth_date: '1990-02-30' })).toEqual({ birth_date: 'Ingresa una fecha de nacimiento válida.' });
  });

  it('want 0 or a gender of the list', () => {
    expect(errorsOf({ gender_id: 4 })).toEqual({ gender_id: 'Selecciona una opción de la lista.' });
    expect(errorsOf({ gender_id: 7 })).toEqual({});
  });
});

describe('the password checks', () => {
  it('check only the length of the new password, in characters, and that it differs', () => {
    expect(validatePasswordChange('MiClub2026!', 'corta')).toEqual({
      newPassword: 'La contraseña debe tener al menos 8 caracteres.',
    });
    expect(validatePasswordChange('MiClub2026!', 'x'.repeat(65))).toEqual({
      newPassword: 'La contraseña puede tener hasta 64 caracteres.',
    });
    expect(validatePasswordChange('MiClub2026!', 'MiClub2026!')).toEqual({
      newPassword: 'La nueva contraseña debe ser distinta de la actual.',
    });
    // No composition rules: lower-case words and spaces are fine; "ñ" counts once.
    expect(validatePasswordChange('MiClub2026!', 'una frase larga')).toEqual({});
    expect(validatePasswordChange('MiClub2026!', 'ñandúñañ')).toEqual({});
    expect(validatePasswordChange('MiClub2026!', '🙂'.repeat(64))).toEqual({});
  });

  it('ask for the current password', () => {
    expect(validatePasswordChange('', 'una frase larga')).toEqual({ currentPassword: 'Ingresa tu contraseña actual.' });
  });
});
