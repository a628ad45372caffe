/**
 * MSW handlers for the component tests; every request and answer is checked against the
 * gateway's OpenAPI document (../contract.ts). They mirror the gateway contract: error bodies
 * `{code, message, action?, field?}`, the CSRF header on POST and PUT, the recaptcha header on
 * login and the password recovery, the `is-logged` cookie set on the code step and cleared on
 * logout and on a password change, the validation table of PUT /api/profile, the password rules
 * with their messages, and the password recovery (its code in `db.recovery.code`).
 *
 * The step-up fields (`currentPassword` of PUT /api/profile and of both unsubscribe steps) are
 * accepted and recorded, never checked here: a test that needs the gateway's refusal
 * (ERR_WRONG_PASSWORD, ERR_TOO_MANY_ATTEMPTS…) answers it with `server.use` and `apiError`.
 */
import { http, HttpResponse, type DefaultBodyType, type StrictRequest } from 'msw';


import type { BodyOf } from '@/lib/api-types';
import { cleanRut, formatRut, isValidRut } from '@/lib/rut';

import { anaBalance, novemberMovements, octoberMovementsFirstPage, octoberMovementsSecondPage } from '../fixtures/account';
import { alliances, anaMissions, banners, generalFaqs, loginFaqs, promotions, tuesdayCartResult } from '../fixtures/content';
import { genders, terms, termsAccepted, termsRejected } from '../fixtures/profile';
import {
  db,
  findMember,
  MOCK_OTP,
  MOCK_RECOVERY_MAX_ATTEMPTS,
  nextRecoveryCode,
  profileOf,
  UNVERIFIABLE_CARD_SERIAL,
  type MockMember,
  type MockRegistration,
  type MockRegistrationIdentity,
  type MockRegistrationPersonalData,
} from './db';

/** Ana's movements by `year-month-page`; any other month answers an empty page. */
const ANA_MOVEMENTS: Record<string, object> = {
  '2026-11-1': novemberMovements,
  '2026-10-1': octoberMovementsFirstPage,
  '2026-10-2': octoberMovementsSecondPage,
};


export const API_ERRORS = {
  ERR_INVALID_ARGUMENT: { status: 400, message: 'Revisa los datos ingresados.' },
  ERR_INVALID_RUT: { status: 400, message: 'El RUT ingresado no es válido.' },
  ERR_RECAPTCHA: { status: 400, message: 'No pudimos verificar que no eres un robot. Intenta de nuevo.' },
  ERR_INVALID_CREDENTIALS: { status: 401, message: 'RUT o contraseña incorrectos.' },
  ERR_UNAUTHENTICATED: { status: 401, message: 'Tu sesión expiró. Inicia sesión nuevamente.' },
  ERR_EMAIL_NOT_VERIFIED: {
    status: 403,
    message: 'Debes verificar tu correo electrónico antes de iniciar sesión.',
  },
  ERR_CSRF: { status: 403, message: 'No pudimos verificar la solicitud. Recarga la página e intenta de nuevo.' },
  ERR_FORBIDDEN: { status: 403, message: 'No tienes permiso para realizar esta acción.' },
  ERR_CONFIRMATION_INVALID: {
    status: 404,
    message: 'El enlace de confirmación no es válido o ya expiró. Pide uno nuevo.',
  },
  ERR_NO_CLUB_ACCOUNT: { status: 406, message: 'Aún no tienes una cuenta Mi Club.' },
  ERR_OTP_INVALID: { status: 422, message: 'El código ingresado no es correcto.' },
  ERR_OTP_EXPIRED: { status: 422, message: 'El código expiró. Inicia sesión nuevamente para recibir uno nuevo.' },
  ERR_WRONG_PASSWORD: { status: 422, message: 'La contraseña actual no es correcta.' },
  ERR_WEAK_PASSWORD: { status: 422, message: 'La nueva contraseña no cumple los requisitos.' },
  ERR_EMAIL_ALREADY_CONFIRMED: { status: 409, message: 'Tu correo electrónico ya está confirmado.' },
  ERR_OTP_TOO_MANY_ATTEMPTS: { status: 429, message: 'Superaste el número de intentos. Inicia sesión nuevamente.' },
  ERR_OTP_RESEND_COOLDOWN: { status: 429, message: 'Espera un momento antes de pedir un nuevo código.' },
  ERR_OTP_DAILY_LIMIT: {
    status: 429,
    message: 'Alcanzaste el máximo de códigos por hoy. Intenta nuevamente mañana.',
  },
  ERR_TOO_MANY_ATTEMPTS: { status: 429, message: 'Demasiados intentos. Espera unos minutos e intenta de nuevo.' },
  ERR_RUT_ALREADY_REGISTERED: {
    status: 409,
    message: 'Este RUT ya está registrado en Mi Club. Inicia sesión o recupera tu contraseña.',
  },
  ERR_EMAIL_ALREADY_REGISTERED: {
    status: 409,
    message: 'Este correo electrónico ya está registrado en Mi Club. Usa otro correo o inicia sesión.',
  },
  ERR_IDENTITY_NOT_VERIFIED: {
    status: 422,
    message: 'No pudimos validar tu documento. Revisa los datos e intenta de nuevo.',
  },
  ERR_REGISTRATION_EXPIRED: { status: 404, message: 'Tu registro expiró por inactividad. Comienza de nuevo.' },
  ERR_TERMS_NOT_ACCEPTED: { status: 422, message: 'Debes aceptar los términos y condiciones para registrarte.' },
  ERR_MEMBER_UNSUBSCRIBED: {
    status: 403,
    message: 'Te diste de baja de Mi Club. Si quieres volver, puedes registrarte de nuevo.',
  },
  ERR_IDENTITY_MISMATCH: { status: 422, message: 'Los datos ingresados no coinciden con los de tu cuenta.' },
  ERR_ALREADY_UNSUBSCRIBED: { status: 409, message: 'Ya te diste de baja de Mi Club.' },
  ERR_MISSIONS_NOT_READY: {
    status: 409,
    message: 'Estamos preparando tus misiones. Vuelve a intentarlo en unos minutos.',
  },
  ERR_INTERNAL: { status: 500, message: 'Ocurrió un error inesperado. Intenta de nuevo más tarde.' },
  ERR_UNAVAILABLE: {
    status: 503,
    message: 'El servicio no está disponible en este momento. Intenta de nuevo más tarde.',
  },
} as const;

export type ApiErrorCode = keyof typeof API_ERRORS;

export const VERIFY_EMAIL_ACTION = {
  url: '/registro/verificar-correo',
  urlName: 'Reenviar correo de verificación',
};

export const RECOVER_PASSWORD_ACTION = { url: '/recuperar-contrasena', urlName: 'Recuperar contraseña' };
export const REGISTER_ACTION = { url: '/registro', urlName: 'Registrarme' };

export function apiError(
  code: ApiErrorCode,
  extra: { message?: string; action?: { url: string; urlName: string }; field?: string } = {},
) {
  const { status, message } = API_ERRORS[code];
  return HttpResponse.json({ code, message: extra.message ?? message, ...extra }, { status });
}

const CHALLENGE = { destination: 'a***@example.cl', expiresInSeconds: 300, resendAfterSeconds: 30 };

function csrfRejected(request: StrictRequest<DefaultBodyType>) {
  return request.headers.get('x-miclub-csrf') !== '1';
}


/** The field-specific texts of docs/api.md ("Validation of PUT /api/profile"). */
export const PROFILE_MESSAGES = {
  email: 'Ingresa un correo electrónico válido.',
  name: 'Ingresa tu nombre.',
  last_name: 'Ingresa tu apellido paterno.',
  characters: 'Usa solo letras, espacios, apóstrofes o guiones.',
  phone_number: 'Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.',
  birth_date: 'Ingresa una fecha de nacimiento válida.',
  underage: 'Debes ser mayor de 18 años.',
  gender_id: 'Selecciona una opción de la lista.',
} as const;

export const PASSWORD_MESSAGES = {
  short: 'La contraseña debe tener al menos 8 caracteres.',
  long: 'La contraseña puede tener hasta 64 caracteres.',
  common: 'Esa contraseña es muy común. Elige otra más difícil de adivinar.',
  same: 'La nueva contraseña debe ser distinta de la actual.',
} as const;

/** A few entries of the common-password list the gateway ships. */
export const COMMON_PASSWORDS = ['12345678', 'password', 'contraseña', 'qwertyui', 'miclub123'];

function fieldError(field: string, message: string) {
  return apiError('ERR_INVALID_ARGUMENT', { field, message });
}

type ProfileBody = Partial<Record<'email' | 'name' | 'last_name' | 'mother_surname' | 'phone_number' | 'birth_date', string>> & {
  gender_id?: number | null;
};

const NAME = /^[\p{L}\p{M}' ’-]{1,50}$/u;

/** The server's side of the validation table, written apart from the form's on purpose. */
function profileProblem(body: ProfileBody, today: Date) {
  const email = (body.email ?? '').trim();
  const [local, domain, ...rest] = email.split('@');
  if (!local || !domain || rest.length > 0 || !/^[^.\s]+(\.[^.\s]+)+$/.test(domain) || email.length > 254) {
    return fieldError('email', PROFILE_MESSAGES.email);
  }
  for (const field of ['name', 'last_name', 'mother_surname'] as const) {
    const value = (body[field] ?? '').trim();
    if (!value) {
      if (field === 'mother_surname') continue;
      return fieldError(field, PROFILE_MESSAGES[field]);
    }
    if (!NAME.test(value)) return fieldError(field, PROFILE_MESSAGES.characters);
  }
  const phone = (body.phone_number ?? '').replace(/\s/g, '');
  if (phone && !/^(\+?56)?9\d{8}$/.test(phone)) return fieldError('phone_number', PROFILE_MESSAGES.phone_number);
  const birth = (body.birth_date ?? '').trim();
  if (birth) {
    const date = new Date(`${birth}T12:00:00Z`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(birth) || Number.isNaN(date.getTime())) {
      return fieldError('birth_date', PROFILE_MESSAGES.birth_date);
    }
    const years = (today.getTime() - date.getTime()) / (365.2425 * 24 * 3600 * 1000);
    if (years < 0 || years > 120) return fieldError('birth_date', PROFILE_MESSAGES.birth_date);
    if (years < 18) return fieldError('birth_date', PROFILE_MESSAGES.underage);
  }
  const gender = body.gender_id ?? 0;
  if (gender !== 0 && !db.genders.some((g) => g.id === gender)) return fieldError('gender_id', PROFILE_MESSAGES.gender_id);
  return null;
}

function normalizedPhone(raw: string): string {
  const digits = raw.replace(/\D/g, '');
  return digits ? `+56${digits.slice(-9)}` : '';
}

function maskEmail(email: string): string {
  const [local = '', domain = ''] = email.split('@');
  return `${local.charAt(0)}***@${domain}`;
}

/** "Mailing" a confirmation link: the token the link would carry. */
function mailConfirmation(member: MockMember): string {
  const token = `token-${db.emailConfirmations.length + 1}-${member.name.toLowerCase()}`;
  db.emailConfirmations.push({ token, member, email: member.email });
  return token;
}

const accountAreaHandlers = [
  http.get('/api/profile/genders', () => {
    return HttpResponse.json(genders);
  }),

  http.put('/api/profile', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.session) return apiError('ERR_UNAUTHENTICATED');
    const body = (await request.json()) as ProfileBody;
    const problem = profileProblem(body, new Date());
    if (problem) return problem;
    const member = db.session;
    const email = (body.email ?? '').trim().toLowerCase();
    const emailChanged = email !== member.email;
    Object.assign(member, {
      email,
      name: (body.name ?? '').trim(),
      last_name: (body.last_name ?? '').trim(),
      mother_surname: (body.mother_surname ?? '').trim(),
      phone_number: normalizedPhone(body.phone_number ?? ''),
      birth_date: (body.birth_date ?? '').trim() || null,
      gender_id: body.gender_id ? body.gender_id : null,
    });
    if (emailChanged) {
      member.emailConfirmed = false;
      mailConfirmation(member);
    }
    return HttpResponse.json({ user: profileOf(member), emailConfirmationSent: emailChanged });
  }),

  http.post('/api/profile/email/resend', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.session) return apiError('ERR_UNAUTHENTICATED');
    if (db.session.emailConfirmed) return apiError('ERR_EMAIL_ALREADY_CONFIRMED');
    mailConfirmation(db.session);
    return new HttpResponse(null, { status: 204 });
  }),

  http.post('/api/profile/email/confirm', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    const { token } = (await request.json()) as { token?: string };
    const index = db.emailConfirmations.findIndex((entry) => entry.token === token);
    const entry = db.emailConfirmations[index];
    if (!entry || entry.member.email !== entry.email) return apiError('ERR_CONFIRMATION_INVALID');
    db.emailConfirmations.splice(index, 1);
    entry.member.emailConfirmed = true;
    // The link of a new registration is also what lets the member log in.
    entry.member.emailVerified = true;
    return HttpResponse.json({ maskedEmail: maskEmail(entry.email) });
  }),

  http.post('/api/profile/email/restore', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    const { token } = ((await request.json().catch(() => null)) ?? {}) as { token?: unknown };
    const index = db.emailRestorations.findIndex((entry) => entry.token === token);
    const entry = db.emailRestorations[index];
    if (!entry) return apiError('ERR_CONFIRMATION_INVALID');
    db.emailRestorations.splice(index, 1);
    return HttpResponse.json({ maskedEmail: entry.maskedEmail }, { headers: { 'Cache-Control': 'no-store' } });
  }),

  http.post('/api/profile/password', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.session) return apiError('ERR_UNAUTHENTICATED');
    if (db.context.changePasswordEnable !== true) {
      return apiError('ERR_FORBIDDEN', { message: 'El cambio de contraseña no está disponible en este momento.' });
    }
    const { currentPassword = '', newPassword = '' } = (await request.json()) as {
      currentPassword?: string;
      newPassword?: string;
    };
    const member = db.session;
    if (currentPassword !== member.password) return apiError('ERR_WRONG_PASSWORD', { field: 'currentPassword' });
    const weak = (message: string) => apiError('ERR_WEAK_PASSWORD', { field: 'newPassword', message });
    const length = Array.from(newPassword).length;
    if (length < 8) return weak(PASSWORD_MESSAGES.short);
    if (length > 64) return weak(PASSWORD_MESSAGES.long);
    if (COMMON_PASSWORDS.includes(newPassword.toLowerCase())) return weak(PASSWORD_MESSAGES.common);
    if (newPassword === currentPassword) return weak(PASSWORD_MESSAGES.same);
    member.password = newPassword;
    // Every session of the member is revoked and the cookies cleared.
    db.session = null;
    document.cookie = 'is-logged=; Path=/; Max-Age=0';
    return new HttpResponse(null, { status: 204 });
  }),

  http.get('/api/terms-and-conditions', () => {
    return HttpResponse.json(terms, { headers: { 'Cache-Control': 'no-cache' } });
  }),

  http.post('/api/terms-and-conditions', async ({ request }) => {
    const body = (await request.json()) as BodyOf<'/api/terms-and-conditions', 'post'>;
    return HttpResponse.json(body.acceptTermsAndConditions ? termsAccepted : termsRejected);
  }),

  http.get('/api/movements', async ({ request }) => {
    const params = new URL(request.url).searchParams;
    const key = `${params.get('year')}-${params.get('month')}-${params.get('page')}`;
    const year = Number(params.get('year'));
    const month = Number(params.get('month'));
    const empty = { year, month, page: 1, pageSize: 10, totalCount: 0, totalPages: 0, items: [] };
    return HttpResponse.json(ANA_MOVEMENTS[key] ?? empty, noStore);
  }),
];

const sessionHandlers = [
  http.get('/api/context', () => HttpResponse.json(db.context)),

  http.post('/api/login', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!request.headers.get('recaptcha-token')) return apiError('ERR_RECAPTCHA');
    const { user, password } = (await request.json()) as { user?: string; password?: string };
    if (!user || !password) return apiError('ERR_INVALID_ARGUMENT');
    const member = findMember(user);
    if (!member || member.password !== password) return apiError('ERR_INVALID_CREDENTIALS');
    if (member.unsubscribedAt) {
      const [year, month, day] = member.unsubscribedAt.slice(0, 10).split('-');
      return apiError('ERR_MEMBER_UNSUBSCRIBED', {
        message: `Te diste de baja de Mi Club el ${day}-${month}-${year}. Si quieres volver, puedes registrarte de nuevo.`,
        action: REGISTER_ACTION,
      });
    }
    if (!member.emailVerified) return apiError('ERR_EMAIL_NOT_VERIFIED', { action: VERIFY_EMAIL_ACTION });
    db.challenge = { member, otp: MOCK_OTP };
    return HttpResponse.json(CHALLENGE);
  }),

  http.post('/api/resend-otp', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.challenge) return apiError('ERR_OTP_EXPIRED');
    return HttpResponse.json(CHALLENGE);
  }),

  http.post('/api/validate-otp', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    const { otp } = (await request.json()) as { otp?: string };
    if (!db.challenge) return apiError('ERR_OTP_EXPIRED');
    if (!otp || !/^\d{6}$/.test(otp)) return apiError('ERR_INVALID_ARGUMENT');
    if (otp !== db.challenge.otp) return apiError('ERR_OTP_INVALID');
    const member = db.challenge.member;
    db.challenge = null;
    db.session = member;
    // The gateway sets mc_session (httpOnly, invisible here) and the readable is-logged cookie.
    document.cookie = 'is-logged=true; Path=/';
    return HttpResponse.json({
      token: 'header.payload.signature',
      // The gateway's login user is the profile's: the spec's fields and three more.
      user: profileOf(member),
      has_missions: member.hasMissions,
      is_user_migrating: member.migrating,
    });
  }),

  http.post('/api/refresh', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.session) {
      document.cookie = 'is-logged=; Path=/; Max-Age=0';
      return apiError('ERR_UNAUTHENTICATED');
    }
    return HttpResponse.json({ expiresInSeconds: 900 });
  }),

  http.post('/api/logout', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    db.session = null;
    document.cookie = 'is-logged=; Path=/; Max-Age=0';
    return new HttpResponse(null, { status: 204 });
  }),

  http.get('/api/profile', () => {
    if (!db.session) return apiError('ERR_UNAUTHENTICATED');
    return HttpResponse.json(profileOf(db.session));
  }),

  http.get('/api/balance', () => {
    return HttpResponse.json(anaBalance, noStore);
  }),
];

/** The neutral answer of step 1, the same whether or not the member exists. */
export const RECOVERY_MESSAGE = 'Si el RUT o documento está registrado, enviamos un código a su correo electrónico.';
export const RECOVERY_TIMES = { expiresInSeconds: 600, resendAfterSeconds: 30 };

/** The gateway's password rules for a reset (no current password is typed, but it still counts). */
function weakPasswordProblem(newPassword: string, member: MockMember) {
  const weak = (message: string) => apiError('ERR_WEAK_PASSWORD', { field: 'newPassword', message });
  const length = Array.from(newPassword).length;
  if (length < 8) return weak(PASSWORD_MESSAGES.short);
  if (length > 64) return weak(PASSWORD_MESSAGES.long);
  if (COMMON_PASSWORDS.includes(newPassword.toLowerCase())) return weak(PASSWORD_MESSAGES.common);
  if (newPassword === member.password) return weak(PASSWORD_MESSAGES.same);
  return null;
}

const passwordRecoveryHandlers = [
  http.post('/api/password-recovery', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!request.headers.get('recaptcha-token')) return apiError('ERR_RECAPTCHA');
    const { user } = ((await request.json().catch(() => null)) ?? {}) as { user?: unknown };
    if (typeof user !== 'string' || !user.trim()) return fieldError('user', 'Ingresa tu RUT o documento.');
    // Something written like a RUT (digits, dots, a hyphen and a check digit) must be a valid one.
    if (/^[\d.]+-[\dkK]$/.test(user.trim()) && !isValidRut(user)) {
      return apiError('ERR_INVALID_RUT', { field: 'user' });
    }
    db.recovery = { member: findMember(user) ?? null, code: nextRecoveryCode(), attempts: 0 };
    return HttpResponse.json({ message: RECOVERY_MESSAGE, ...RECOVERY_TIMES });
  }),

  http.post('/api/password-recovery/resend', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.recovery) return apiError('ERR_OTP_EXPIRED');
    db.recovery = { ...db.recovery, code: nextRecoveryCode(), attempts: 0 };
    return HttpResponse.json(RECOVERY_TIMES);
  }),

  http.post('/api/password-recovery/reset', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    const { code = '', newPassword = '' } = ((await request.json().catch(() => null)) ?? {}) as {
      code?: string;
      newPassword?: string;
    };
    const recovery = db.recovery;
    if (!recovery) return apiError('ERR_OTP_EXPIRED');
    if (!recovery.member || code !== recovery.code) {
      recovery.attempts += 1;
      if (recovery.attempts >= MOCK_RECOVERY_MAX_ATTEMPTS) {
        db.recovery = null;
        return apiError('ERR_OTP_TOO_MANY_ATTEMPTS');
      }
      return apiError('ERR_OTP_INVALID', { field: 'code' });
    }
    const member = recovery.member;
    const weak = weakPasswordProblem(newPassword, member);
    if (weak) return weak;
    member.password = newPassword;
    db.recovery = null;
    // Every session of the member is revoked.
    if (db.session === member) db.session = null;
    return new HttpResponse(null, { status: 204 });
  }),
];

/** The step 2 messages that differ from Mis Datos'. */
export const REGISTRATION_SERVER_MESSAGES = {
  underage: 'Debes ser mayor de 18 años para registrarte.',
  cardSerial: 'El número de documento no es válido.',
  foreignNumber: 'El número de documento debe tener entre 5 y 20 letras y números, con al menos una letra.',
  documentType: 'Selecciona el tipo de documento.',
  country: 'Selecciona el país que emitió tu documento.',
} as const;

const REGISTRATION_EXPIRES_IN_SECONDS = 1800;

function registrationView(registration: MockRegistration) {
  return {
    step: registration.step,
    identity: { ...registration.identity },
    personalData: registration.personalData ? { ...registration.personalData } : null,
    expiresInSeconds: REGISTRATION_EXPIRES_IN_SECONDS,
  };
}

/** The flow of this browser, or null when there is none or it expired. */
function liveRegistration(): MockRegistration | null {
  return db.registration && !db.registration.expired ? db.registration : null;
}

function identityKey(identity: MockRegistrationIdentity): string {
  return identity.documentType === 'RUT' ? cleanRut(identity.rut) : identity.documentNumber;
}

function memberWithIdentity(identity: MockRegistrationIdentity): MockMember | undefined {
  const key = identityKey(identity);
  return db.members.find((member) => (member.document_type === 'RUT' ? cleanRut(member.user) : member.user) === key);
}

function memberWithEmail(email: string): MockMember | undefined {
  const wanted = email.trim().toLowerCase();
  return db.members.find((member) => member.email.toLowerCase() === wanted);
}

/** Step 1 as the registration service checks it; the identity in canonical form, or the error. */
function identityProblem(body: Record<string, unknown>): { identity: MockRegistrationIdentity } | { error: Response } {
  const text = (key: string) => (typeof body[key] === 'string' ? (body[key] as string).trim() : '');
  if (body.documentType === 'RUT') {
    if (!isValidRut(text('rut'))) return { error: apiError('ERR_INVALID_RUT', { field: 'rut' }) };
    const serial = text('documentNumber').toUpperCase().replace(/\./g, '');
    if (!/^A?\d{9}$/.test(serial)) {
      return { error: fieldError('documentNumber', REGISTRATION_SERVER_MESSAGES.cardSerial) };
    }
    return { identity: { documentType: 'RUT', rut: formatRut(text('rut')), documentNumber: serial } };
  }
  if (body.documentType === 'PASSPORT' || body.documentType === 'NATIONAL_ID') {
    const number = text('documentNumber').toUpperCase().replace(/[-. ]/g, '');
    if (!/^[A-Z0-9]{5,20}$/.test(number) || !/[A-Z]/.test(number)) {
      return { error: fieldError('documentNumber', REGISTRATION_SERVER_MESSAGES.foreignNumber) };
    }
    const country = text('country').toUpperCase();
    if (!/^[A-Z]{2}$/.test(country) || country === 'CL') {
      return { error: fieldError('country', REGISTRATION_SERVER_MESSAGES.country) };
    }
    return { identity: { documentType: body.documentType, documentNumber: number, country } };
  }
  return { error: fieldError('documentType', REGISTRATION_SERVER_MESSAGES.documentType) };
}

/** Step 2: the Mis Datos table in camelCase, every field required but the mother's surname. */
function registrationPersonalDataProblem(body: Partial<MockRegistrationPersonalData>, today: Date): Response | null {
  const email = (body.email ?? '').trim();
  const [local, domain, ...rest] = email.split('@');
  if (!local || !domain || rest.length > 0 || !/^[^.\s]+(\.[^.\s]+)+$/.test(domain) || email.length > 254) {
    return fieldError('email', PROFILE_MESSAGES.email);
  }
  const names = [
    ['name', PROFILE_MESSAGES.name],
    ['lastName', PROFILE_MESSAGES.last_name],
    ['motherSurname', null],
  ] as const;
  for (const [field, emptyMessage] of names) {
    const value = (body[field] ?? '').trim();
    if (!value) {
      if (emptyMessage) return fieldError(field, emptyMessage);
      continue;
    }
    if (!NAME.test(value)) return fieldError(field, PROFILE_MESSAGES.characters);
  }
  const phone = (body.phoneNumber ?? '').replace(/\s/g, '');
  if (!/^(\+?56)?9\d{8}$/.test(phone)) return fieldError('phoneNumber', PROFILE_MESSAGES.phone_number);
  const birth = (body.birthDate ?? '').trim();
  const date = new Date(`${birth}T12:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(birth) || Number.isNaN(date.getTime())) {
    return fieldError('birthDate', PROFILE_MESSAGES.birth_date);
  }
  const years = (today.getTime() - date.getTime()) / (365.2425 * 24 * 3600 * 1000);
  if (years < 0 || years > 120) return fieldError('birthDate', PROFILE_MESSAGES.birth_date);
  if (years < 18) return fieldError('birthDate', REGISTRATION_SERVER_MESSAGES.underage);
  if (!db.genders.some((gender) => gender.id === body.genderId)) {
    return fieldError('genderId', PROFILE_MESSAGES.gender_id);
  }
  return null;
}

const registrationHandlers = [
  http.get('/api/registration', () => {
    const registration = liveRegistration();
    if (!registration) return apiError('ERR_REGISTRATION_EXPIRED');
    return HttpResponse.json(registrationView(registration));
  }),

  http.post('/api/registration', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    const body = ((await request.json().catch(() => null)) ?? {}) as Record<string, unknown>;
    const checked = identityProblem(body);
    if ('error' in checked) return checked.error;
    if (memberWithIdentity(checked.identity)) {
      return apiError('ERR_RUT_ALREADY_REGISTERED', { action: RECOVER_PASSWORD_ACTION });
    }
    if (checked.identity.documentType === 'RUT' && checked.identity.documentNumber === UNVERIFIABLE_CARD_SERIAL) {
      return apiError('ERR_IDENTITY_NOT_VERIFIED');
    }
    // A new flow replaces any earlier one of this browser.
    db.registration = { step: 2, identity: checked.identity, personalData: null, expired: false };
    return HttpResponse.json(registrationView(db.registration), { status: 201 });
  }),

  http.put('/api/registration/personal-data', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    const registration = liveRegistration();
    if (!registration) return apiError('ERR_REGISTRATION_EXPIRED');
    const body = ((await request.json().catch(() => null)) ?? {}) as Partial<MockRegistrationPersonalData>;
    const problem = registrationPersonalDataProblem(body, new Date());
    if (problem) return problem;
    // The gateway never says whether the email is a member's (it is dealt with at completion).
    registration.personalData = {
      name: (body.name ?? '').trim(),
      lastName: (body.lastName ?? '').trim(),
      motherSurname: (body.motherSurname ?? '').trim(),
      phoneNumber: normalizedPhone(body.phoneNumber ?? ''),
      birthDate: (body.birthDate ?? '').trim(),
      genderId: body.genderId ?? 0,
      email: (body.email ?? '').trim().toLowerCase(),
    };
    registration.step = 3;
    return HttpResponse.json(registrationView(registration));
  }),

  http.post('/api/registration/complete', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    const registration = liveRegistration();
    if (!registration || registration.step !== 3 || !registration.personalData) {
      return apiError('ERR_REGISTRATION_EXPIRED');
    }
    const { password = '', acceptTerms } = ((await request.json().catch(() => null)) ?? {}) as {
      password?: string;
      acceptTerms?: unknown;
    };
    const weak = (message: string) => apiError('ERR_WEAK_PASSWORD', { field: 'password', message });
    const length = Array.from(password).length;
    if (length < 8) return weak(PASSWORD_MESSAGES.short);
    if (length > 64) return weak(PASSWORD_MESSAGES.long);
    if (COMMON_PASSWORDS.includes(password.toLowerCase())) return weak(PASSWORD_MESSAGES.common);
    if (acceptTerms !== true) return apiError('ERR_TERMS_NOT_ACCEPTED', { field: 'acceptTerms' });
    // Someone may have finished first with the same document or email.
    if (memberWithIdentity(registration.identity)) {
      return apiError('ERR_RUT_ALREADY_REGISTERED', { action: RECOVER_PASSWORD_ACTION });
    }
    const data = registration.personalData;
    if (memberWithEmail(data.email)) {
      // Answered exactly as a success: nothing is created, the owner is told by mail.
      db.registration = null;
      return HttpResponse.json({ maskedEmail: maskEmail(data.email) }, { status: 201 });
    }
    const identity = registration.identity;
    const member: MockMember = {
      user: identity.documentType === 'RUT' ? identity.rut : identity.documentNumber,
      password,
      name: data.name,
      last_name: data.lastName,
      mother_surname: data.motherSurname,
      phone_number: data.phoneNumber,
      gender_id: data.genderId,
      birth_date: data.birthDate,
      email: data.email,
      emailConfirmed: false,
      document_type: identity.documentType === 'RUT' ? 'RUT' : 'FOREIGN',
      document_number: identity.documentType === 'RUT' ? cleanRut(identity.rut).replace(/(.)$/, '-$1') : identity.documentNumber,
      terms: { agreement: 'accepted', event_date: new Date().toISOString() },
      balance: 0,
      hasMissions: false,
      emailVerified: false,
      migrating: false,
      unsubscribedAt: null,
    };
    db.members.push(member);
    mailConfirmation(member);
    db.registration = null;
    return HttpResponse.json({ maskedEmail: maskEmail(member.email) }, { status: 201 });
  }),

  http.delete('/api/registration', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    db.registration = null;
    return new HttpResponse(null, { status: 204 });
  }),

  http.post('/api/registration/verification-email', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    const { user } = ((await request.json().catch(() => null)) ?? {}) as { user?: unknown };
    if (typeof user !== 'string' || !user.trim()) return fieldError('user', 'Ingresa tu RUT o documento.');
    if (/^[\d.]+-[\dkK]$/.test(user.trim()) && !isValidRut(user)) return apiError('ERR_INVALID_RUT', { field: 'user' });
    const member = findMember(user);
    if (member && !member.emailVerified) {
      db.verificationEmailsSent.push(member.user);
      mailConfirmation(member);
    }
    return HttpResponse.json({}, { status: 202 });
  }),
];

function sameIdentity(member: MockMember, user: unknown, email: unknown): boolean {
  return (
    typeof user === 'string' &&
    typeof email === 'string' &&
    findMember(user) === member &&
    member.email.toLowerCase() === email.trim().toLowerCase()
  );
}

const unsubscribeHandlers = [
  http.get('/api/unsubscribe/reasons', () => {
    if (!db.session) return apiError('ERR_UNAUTHENTICATED');
    return HttpResponse.json({ reasons: db.unsubscribeReasons });
  }),

  http.post('/api/unsubscribe/validate', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.session) return apiError('ERR_UNAUTHENTICATED');
    const { user, email } = ((await request.json().catch(() => null)) ?? {}) as { user?: unknown; email?: unknown };
    if (!sameIdentity(db.session, user, email)) return apiError('ERR_IDENTITY_MISMATCH');
    const at = db.session.unsubscribedAt;
    return HttpResponse.json(at ? { alreadyUnsubscribed: true, unsubscribedAt: at } : { alreadyUnsubscribed: false });
  }),

  http.post('/api/unsubscribe', async ({ request }) => {
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.session) return apiError('ERR_UNAUTHENTICATED');
    const { user, email, reasonId, reasonText } = ((await request.json().catch(() => null)) ?? {}) as {
      user?: unknown;
      email?: unknown;
      reasonId?: unknown;
      reasonText?: unknown;
    };
    const member = db.session;
    if (!sameIdentity(member, user, email)) return apiError('ERR_IDENTITY_MISMATCH');
    if (member.unsubscribedAt) return apiError('ERR_ALREADY_UNSUBSCRIBED');
    const reason = db.unsubscribeReasons.find((candidate) => candidate.id === reasonId);
    if (!reason) return fieldError('reasonId', 'Elige un motivo de la lista.');
    const text = typeof reasonText === 'string' ? reasonText.trim() : '';
    if ((reason.requiresText && !text) || Array.from(text).length > 500) {
      return fieldError('reasonText', 'Cuéntanos el motivo en hasta 500 caracteres.');
    }
    member.unsubscribedAt = new Date().toISOString();
    // Personal data erased; the document stays so login can say the member left.
    Object.assign(member, {
      name: '',
      last_name: '',
      mother_surname: '',
      phone_number: '',
      birth_date: null,
      gender_id: null,
      email: '',
    });
    // Every session revoked and the cookies cleared.
    db.session = null;
    document.cookie = 'is-logged=; Path=/; Max-Age=0';
    return HttpResponse.json({ unsubscribedAt: member.unsubscribedAt });
  }),
];

/** The gateway's field texts for POST /api/simulator a test answers with (the form shows the same before sending). */
export const SIMULATOR_SERVER_MESSAGES = {
  tooLarge: 'El monto máximo por categoría es $10.000.000.',
} as const;

const publicCache = { headers: { 'Cache-Control': 'public, max-age=60' } };
const noStore = { headers: { 'Cache-Control': 'no-store' } };

const contentHandlers = [
  http.get('/api/missions', () => {
    return HttpResponse.json(anaMissions, noStore);
  }),

  http.get('/api/promotions', () => {
    return HttpResponse.json(promotions, publicCache);
  }),

  http.get('/api/alliances', () => {
    return HttpResponse.json(alliances, publicCache);
  }),

  http.get('/api/banners', () => {
    return HttpResponse.json(banners, publicCache);
  }),

  http.get('/api/faqs', async ({ request }) => {
    const audience = new URL(request.url).searchParams.get('audience');
    return HttpResponse.json(audience === 'login' ? loginFaqs : generalFaqs, publicCache);
  }),

  http.post('/api/simulator', () => {
    return HttpResponse.json(tuesdayCartResult);
  }),
];

export const handlers = [
  ...sessionHandlers,
  ...contentHandlers,
  ...accountAreaHandlers,
  ...passwordRecoveryHandlers,
  ...registrationHandlers,
  ...unsubscribeHandlers,
];
