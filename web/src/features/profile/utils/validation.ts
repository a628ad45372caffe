/**
 * Client-side checks of Mis Datos and the password change. They mirror the gateway's table in
 * docs/api.md rule for rule and message for message, so a member reads the same text whether the
 * form or the server caught the mistake.
 */
import { ageOn, chileToday, parseIsoDate, type CalendarDate } from '@/lib/dates';
import { PASSWORD_LENGTH_MESSAGES, PASSWORD_MAX_LENGTH, passwordLengthError } from '@/lib/password';

import type { ProfileUpdate } from '../api/update-profile';

export type ProfileField = keyof ProfileUpdate;
export type ProfileErrors = Partial<Record<ProfileField, string>>;

export const PROFILE_FIELDS: readonly ProfileField[] = [
  'email',
  'name',
  'last_name',
  'mother_surname',
  'phone_number',
  'birth_date',
  'gender_id',
];

export const MESSAGES = {
  email: 'Ingresa un correo electrónico válido.',
  nameEmpty: 'Ingresa tu nombre.',
  lastNameEmpty: 'Ingresa tu apellido paterno.',
  nameCharacters: 'Usa solo letras, espacios, apóstrofes o guiones.',
  phone: 'Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.',
  birthDate: 'Ingresa una fecha de nacimiento válida.',
  underage: 'Debes ser mayor de 18 años.',
  gender: 'Selecciona una opción de la lista.',
  currentPasswordEmpty: 'Ingresa tu contraseña actual.',
  passwordTooShort: PASSWORD_LENGTH_MESSAGES.tooShort,
  passwordTooLong: PASSWORD_LENGTH_MESSAGES.tooLong,
  passwordUnchanged: 'La nueva contraseña debe ser distinta de la actual.',
} as const;

export const EMAIL_MAX_LENGTH = 254;
export const NAME_MAX_LENGTH = 50;
export { PASSWORD_MAX_LENGTH };
const MIN_AGE = 18;
const MAX_AGE = 120;

/** Characters, not UTF-16 units: "ñ" or an emoji count once, as the server counts them. */
export function charCount(value: string): number {
  return Array.from(value).length;
}

/** One `@`, something before it, a dot inside the domain, no spaces, at most 254 characters. */
export function isValidEmail(raw: string): boolean {
  const email = raw.trim();
  if (!email || charCount(email) > EMAIL_MAX_LENGTH || /\s/.test(email)) return false;
  const parts = email.split('@');
  if (parts.length !== 2) return false;
  const [local = '', domain = ''] = parts;
  return (
    local.length > 0 &&
    domain.includes('.') &&
    !domain.startsWith('.') &&
    !domain.endsWith('.') &&
    !domain.includes('..')
  );
}

const NAME_PATTERN = /^[\p{L}\p{M}' ’-]+$/u;

function nameError(raw: string, emptyMessage: string | null): string | undefined {
  const value = raw.trim();
  if (!value) return emptyMessage ?? undefined;
  if (charCount(value) > NAME_MAX_LENGTH || !NAME_PATTERN.test(value)) return MESSAGES.nameCharacters;
  return undefined;
}

/** `+569XXXXXXXX`, `569XXXXXXXX` or `9XXXXXXXX`, spaces ignored; null when it is none of them. */
export function normalizeChileanMobile(raw: string): string | null {
  const compact = raw.replace(/\s+/g, '');
  const match = /^(?:\+?56)?(9\d{8})$/.exec(compact);
  return match ? `+56${match[1]}` : null;
}

function birthDateError(raw: string, today: CalendarDate): string | undefined {
  if (!raw.trim()) return undefined;
  const birth = parseIsoDate(raw);
  if (!birth) return MESSAGES.birthDate;
  const age = ageOn(birth, today);
  if (age < 0 || age > MAX_AGE) return MESSAGES.birthDate;
  if (age < MIN_AGE) return MESSAGES.underage;
  return undefined;
}

/** Every field's error, or an empty object when the form can be sent. */
export function validateProfile(
  values: ProfileUpdate,
  genderIds: readonly number[],
  today: CalendarDate = chileToday(),
): ProfileErrors {
  const errors: ProfileErrors = {};
  if (!isValidEmail(values.email)) errors.email = MESSAGES.email;
  const name = nameError(values.name, MESSAGES.nameEmpty);
  if (name) errors.name = name;
  const lastName = nameError(values.last_name, MESSAGES.lastNameEmpty);
  if (lastName) errors.last_name = lastName;
  const motherSurname = nameError(values.mother_surname, null);
  if (motherSurname) errors.mother_surname = motherSurname;
  if (values.phone_number.trim() && !normalizeChileanMobile(values.phone_number)) errors.phone_number = MESSAGES.phone;
  const birthDate = birthDateError(values.birth_date, today);
  if (birthDate) errors.birth_date = birthDate;
  if (values.gender_id !== 0 && !genderIds.includes(values.gender_id)) errors.gender_id = MESSAGES.gender;
  return errors;
}

export type PasswordErrors = Partial<Record<'currentPassword' | 'newPassword', string>>;

/** Length only: the gateway alone knows the common-password list (NIST SP 800-63B). */
export function newPasswordError(newPassword: string, currentPassword: string): string | undefined {
  const length = passwordLengthError(newPassword);
  if (length) return length;
  if (currentPassword && newPassword === currentPassword) return MESSAGES.passwordUnchanged;
  return undefined;
}

export function validatePasswordChange(currentPassword: string, newPassword: string): PasswordErrors {
  const errors: PasswordErrors = {};
  if (!currentPassword) errors.currentPassword = MESSAGES.currentPasswordEmpty;
  const next = newPasswordError(newPassword, currentPassword);
  if (next) errors.newPassword = next;
  return errors;
}
