/**
 * The personal-data rules the gateway applies both to Mis Datos and to step 2 of the
 * registration (docs/api.md, "Validation of PUT /api/profile"), with its messages, so a member
 * reads the same text whether a form or the server caught the mistake.
 */
import { ageOn, parseIsoDate, type CalendarDate } from './dates';

export const PERSONAL_DATA_MESSAGES = {
  email: 'Ingresa un correo electrónico válido.',
  nameEmpty: 'Ingresa tu nombre.',
  lastNameEmpty: 'Ingresa tu apellido paterno.',
  nameCharacters: 'Usa solo letras, espacios, apóstrofes o guiones.',
  phone: 'Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.',
  birthDate: 'Ingresa una fecha de nacimiento válida.',
  underage: 'Debes ser mayor de 18 años.',
  gender: 'Selecciona una opción de la lista.',
} as const;

export const EMAIL_MAX_LENGTH = 254;
export const NAME_MAX_LENGTH = 50;
export const MIN_AGE = 18;
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

/** A name's error: `emptyMessage` when it is empty (null: optional), else its characters. */
export function nameError(raw: string, emptyMessage: string | null): string | undefined {
  const value = raw.trim();
  if (!value) return emptyMessage ?? undefined;
  if (charCount(value) > NAME_MAX_LENGTH || !NAME_PATTERN.test(value)) return PERSONAL_DATA_MESSAGES.nameCharacters;
  return undefined;
}

/** `+569XXXXXXXX`, `569XXXXXXXX` or `9XXXXXXXX`, spaces ignored; null when it is none of them. */
export function normalizeChileanMobile(raw: string): string | null {
  const compact = raw.replace(/\s+/g, '');
  const match = /^(?:\+?56)?(9\d{8})$/.exec(compact);
  return match ? `+56${match[1]}` : null;
}

/**
 * A birth date's error on `today` (Chile's day): an existing ISO date, an age from 18 to 120.
 * `underageMessage` lets the registration say why it refuses a minor.
 */
export function birthDateError(
  raw: string,
  today: CalendarDate,
  underageMessage: string = PERSONAL_DATA_MESSAGES.underage,
): string | undefined {
  const birth = parseIsoDate(raw);
  if (!birth) return PERSONAL_DATA_MESSAGES.birthDate;
  const age = ageOn(birth, today);
  if (age < 0 || age > MAX_AGE) return PERSONAL_DATA_MESSAGES.birthDate;
  if (age < MIN_AGE) return underageMessage;
  return undefined;
}

/** The latest birth date of someone who is 18 on `today`, for a date input's `max`. */
export function latestAdultBirthDate(today: CalendarDate): string {
  return `${today.year - MIN_AGE}-${String(today.month).padStart(2, '0')}-${String(today.day).padStart(2, '0')}`;
}
