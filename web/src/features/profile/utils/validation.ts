/**
 * Client-side checks of Mis Datos and the password change. They mirror the gateway's table in
 * docs/api.md rule for rule and message for message, so a member reads the same text whether the
 * form or the server caught the mistake.
 */
import { chileToday, type CalendarDate } from '@/lib/dates';
import { PASSWORD_MAX_LENGTH, passwordLengthError } from '@/lib/password';
import {
  birthDateError as personalBirthDateError,
  isValidEmail,
  nameError,
  normalizeChileanMobile,
} from '@/lib/personal-data';

import type { ProfileUpdate } from '../api/update-profile';
import { MESSAGES } from '../messages';

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

export { MESSAGES };

export { charCount, EMAIL_MAX_LENGTH, isValidEmail, NAME_MAX_LENGTH, normalizeChileanMobile } from '@/lib/personal-data';
export { PASSWORD_MAX_LENGTH };

/** Optional in Mis Datos: an empty birth date clears it. */
function birthDateError(raw: string, today: CalendarDate): string | undefined {
  if (!raw.trim()) return undefined;
  return personalBirthDateError(raw, today);
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
