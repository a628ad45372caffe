/**
 * The pure rules of the registration: the forms of each step, what each checks before calling
 * the gateway (with the gateway's own messages), and where each gateway failure is shown.
 */
import type { ApiError } from '@/lib/api-client';
import { chileToday, type CalendarDate } from '@/lib/dates';
import { capitalizeFirst, isServerFailure, toDisplayError, type DisplayError } from '@/lib/errors';
import { passwordLengthError } from '@/lib/password';
import { birthDateError, isValidEmail, nameError, normalizeChileanMobile } from '@/lib/personal-data';
import { cleanRut, formatRut, isValidRut } from '@/lib/rut';

import type { RegistrationIdentity, RegistrationPersonalData } from '../api/get-registration';
import { IDENTITY_MESSAGES, REGISTRATION_FAILED, REGISTRATION_MESSAGES } from '../messages';

import { FOREIGN_COUNTRY_CODES } from './countries';

export { IDENTITY_MESSAGES, REGISTRATION_FAILED, REGISTRATION_MESSAGES };

// ---------------------------------------------------------------- step 1

/** The foreign documents the gateway takes: 'PASSPORT' or 'NATIONAL_ID'. */
export type ForeignDocumentType = Exclude<RegistrationIdentity['documentType'], 'RUT'>;
export type DocumentKind = 'rut' | 'foreign';

export type IdentityForm = {
  kind: DocumentKind;
  rut: string;
  /** The ID card's serial number ("Número de documento"). */
  cardSerial: string;
  foreignType: ForeignDocumentType | '';
  foreignNumber: string;
  country: string;
};

export type IdentityField = 'rut' | 'documentNumber' | 'documentType' | 'country';
export type IdentityErrors = Partial<Record<IdentityField, string>>;
export const IDENTITY_FIELDS: readonly IdentityField[] = ['rut', 'documentNumber', 'documentType', 'country'];

export const EMPTY_IDENTITY: IdentityForm = {
  kind: 'rut',
  rut: '',
  cardSerial: '',
  foreignType: '',
  foreignNumber: '',
  country: '',
};

/** 9 digits, or "A" and 9 digits on older cards; dots allowed. */
export function isValidCardSerial(value: string): boolean {
  return /^A?\d{9}$/.test(value.trim().toUpperCase().replace(/\./g, ''));
}

/** 5 to 20 letters and digits with at least one letter (only digits would read as a RUT at login). */
export function isValidForeignNumber(value: string): boolean {
  const cleaned = value.trim().toUpperCase().replace(/[-. ]/g, '');
  return /^[A-Z0-9]{5,20}$/.test(cleaned) && /[A-Z]/.test(cleaned);
}

export function validateIdentity(form: IdentityForm): IdentityErrors {
  const errors: IdentityErrors = {};
  if (form.kind === 'rut') {
    if (!form.rut.trim()) errors.rut = IDENTITY_MESSAGES.rutEmpty;
    else if (!isValidRut(form.rut)) errors.rut = IDENTITY_MESSAGES.rutInvalid;
    if (!form.cardSerial.trim()) errors.documentNumber = IDENTITY_MESSAGES.serialEmpty;
    else if (!isValidCardSerial(form.cardSerial)) errors.documentNumber = IDENTITY_MESSAGES.serialInvalid;
    return errors;
  }
  if (!form.foreignType) errors.documentType = IDENTITY_MESSAGES.documentType;
  if (!form.foreignNumber.trim()) errors.documentNumber = IDENTITY_MESSAGES.foreignEmpty;
  else if (!isValidForeignNumber(form.foreignNumber)) errors.documentNumber = IDENTITY_MESSAGES.foreignInvalid;
  if (!(FOREIGN_COUNTRY_CODES as readonly string[]).includes(form.country)) errors.country = IDENTITY_MESSAGES.country;
  return errors;
}

/** The body of POST /api/registration for a form that passed `validateIdentity`. */
export function identityBody(form: IdentityForm): RegistrationIdentity {
  if (form.kind === 'rut') {
    return { documentType: 'RUT', rut: formatRut(form.rut), documentNumber: form.cardSerial.trim().toUpperCase() };
  }
  return {
    documentType: form.foreignType || 'PASSPORT',
    documentNumber: form.foreignNumber.trim().toUpperCase(),
    country: form.country,
  };
}

/** The form as the gateway's view holds the identity (a reload, or "Volver" to step 1). */
export function identityForm(identity: RegistrationIdentity): IdentityForm {
  if (identity.documentType === 'RUT') {
    return { ...EMPTY_IDENTITY, kind: 'rut', rut: formatRut(cleanRut(identity.rut)), cardSerial: identity.documentNumber };
  }
  return {
    ...EMPTY_IDENTITY,
    kind: 'foreign',
    foreignType: identity.documentType,
    foreignNumber: identity.documentNumber,
    country: identity.country,
  };
}

// ---------------------------------------------------------------- step 2

/** Step 2's form: every field of the gateway's personal data, an empty mother's surname as ''. */
export type PersonalDataForm = Required<RegistrationPersonalData>;

export type PersonalField = keyof PersonalDataForm;
export type PersonalErrors = Partial<Record<PersonalField, string>>;
export const PERSONAL_FIELDS: readonly PersonalField[] = [
  'name',
  'lastName',
  'motherSurname',
  'phoneNumber',
  'birthDate',
  'genderId',
  'email',
];

export const EMPTY_PERSONAL_DATA: PersonalDataForm = {
  name: '',
  lastName: '',
  motherSurname: '',
  phoneNumber: '',
  birthDate: '',
  genderId: 0,
  email: '',
};

/** The form as the gateway's view holds the personal data (a reload, or the answer of step 2). */
export function personalDataForm(data: RegistrationPersonalData): PersonalDataForm {
  return { ...data, motherSurname: data.motherSurname ?? '' };
}

/** Every field's error; all are required but the mother's surname. */
export function validatePersonalData(
  values: PersonalDataForm,
  genderIds: readonly number[],
  today: CalendarDate = chileToday(),
): PersonalErrors {
  const errors: PersonalErrors = {};
  const name = nameError(values.name, REGISTRATION_MESSAGES.nameEmpty);
  if (name) errors.name = name;
  const lastName = nameError(values.lastName, REGISTRATION_MESSAGES.lastNameEmpty);
  if (lastName) errors.lastName = lastName;
  const motherSurname = nameError(values.motherSurname, null);
  if (motherSurname) errors.motherSurname = motherSurname;
  if (!normalizeChileanMobile(values.phoneNumber)) errors.phoneNumber = REGISTRATION_MESSAGES.phone;
  const birthDate = birthDateError(values.birthDate, today, REGISTRATION_MESSAGES.underage);
  if (birthDate) errors.birthDate = birthDate;
  if (!genderIds.includes(values.genderId)) errors.genderId = REGISTRATION_MESSAGES.gender;
  if (!isValidEmail(values.email)) errors.email = REGISTRATION_MESSAGES.email;
  return errors;
}

/** The body of PUT /api/registration/personal-data: trimmed, the mobile as +569XXXXXXXX. */
export function personalDataBody(values: PersonalDataForm): RegistrationPersonalData {
  return {
    name: values.name.trim(),
    lastName: values.lastName.trim(),
    motherSurname: values.motherSurname.trim(),
    phoneNumber: normalizeChileanMobile(values.phoneNumber) ?? values.phoneNumber.trim(),
    birthDate: values.birthDate.trim(),
    genderId: values.genderId,
    email: values.email.trim(),
  };
}

// ---------------------------------------------------------------- step 3

export type CompletionField = 'password' | 'acceptTerms';
export type CompletionErrors = Partial<Record<CompletionField, string>>;
export const COMPLETION_FIELDS: readonly CompletionField[] = ['password', 'acceptTerms'];

export function validateCompletion(password: string, acceptTerms: boolean): CompletionErrors {
  const errors: CompletionErrors = {};
  const length = passwordLengthError(password);
  if (length) errors.password = length;
  if (!acceptTerms) errors.acceptTerms = REGISTRATION_MESSAGES.terms;
  return errors;
}

// ---------------------------------------------------------------- failures

/** Where a gateway failure of a step is shown. */
export type RegistrationFailure<F extends string> =
  | { kind: 'field'; field: F; message: string }
  /** The flow is gone (ERR_REGISTRATION_EXPIRED): back to step 1 with this message. */
  | { kind: 'expired'; display: DisplayError }
  | { kind: 'general'; display: DisplayError };

/** Codes shown with their own message and action link (not under a field). No step says
 * whether an email is a member's, so there is no email counterpart. */
const ALERT_CODES = new Set(['ERR_RUT_ALREADY_REGISTERED']);

/** The field a code implies when the gateway names none. */
const CODE_FIELDS: Record<string, string> = {
  ERR_INVALID_RUT: 'rut',
  ERR_WEAK_PASSWORD: 'password',
  ERR_TERMS_NOT_ACCEPTED: 'acceptTerms',
};

export function registrationFailure<F extends string>(error: unknown, fields: readonly F[]): RegistrationFailure<F> {
  if (isServerFailure(error)) return { kind: 'general', display: { message: REGISTRATION_FAILED } };
  const apiError = error as ApiError;
  if (apiError.code === 'ERR_REGISTRATION_EXPIRED' || apiError.status === 404) {
    return { kind: 'expired', display: toDisplayError(error, REGISTRATION_FAILED) };
  }
  if (apiError.code && ALERT_CODES.has(apiError.code)) {
    return { kind: 'general', display: toDisplayError(error, REGISTRATION_FAILED) };
  }
  const named = apiError.body?.field ?? (apiError.code ? CODE_FIELDS[apiError.code] : undefined);
  const field = fields.find((candidate) => candidate === named);
  if (field && apiError.body?.message.trim()) {
    return { kind: 'field', field, message: capitalizeFirst(apiError.body.message) };
  }
  return { kind: 'general', display: toDisplayError(error, REGISTRATION_FAILED) };
}
