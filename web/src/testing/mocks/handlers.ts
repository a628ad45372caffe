/**
 * MSW handlers mirroring the gateway contract of docs/api.md: error bodies
 * `{code, message, action?, field?}`, the CSRF header on POST, the recaptcha header on login,
 * the `is-logged` cookie set on the code step and cleared on logout.
 */
import { http, HttpResponse, type DefaultBodyType, type StrictRequest } from 'msw';

import { db, findMember, MOCK_OTP, userOf } from './db';

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
  ERR_NO_CLUB_ACCOUNT: { status: 406, message: 'Aún no tienes una cuenta Mi Club.' },
  ERR_OTP_INVALID: { status: 422, message: 'El código ingresado no es correcto.' },
  ERR_OTP_EXPIRED: { status: 422, message: 'El código expiró. Inicia sesión nuevamente para recibir uno nuevo.' },
  ERR_OTP_TOO_MANY_ATTEMPTS: { status: 429, message: 'Superaste el número de intentos. Inicia sesión nuevamente.' },
  ERR_OTP_RESEND_COOLDOWN: { status: 429, message: 'Espera un momento antes de pedir un nuevo código.' },
  ERR_OTP_DAILY_LIMIT: {
    status: 429,
    message: 'Alcanzaste el máximo de códigos por hoy. Intenta nuevamente mañana.',
  },
  ERR_TOO_MANY_ATTEMPTS: { status: 429, message: 'Demasiados intentos. Espera unos minutos e intenta de nuevo.' },
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

export function apiError(
  code: ApiErrorCode,
  extra: { message?: string; action?: { url: string; urlName: string }; field?: string } = {},
) {
  const { status, message } = API_ERRORS[code];
  return HttpResponse.json({ code, message: extra.message ?? message, ...extra }, { status });
}

const CHALLENGE = { destination: 'a***@example.cl', expiresInSeconds: 300, resendAfterSeconds: 30 };

async function record(request: StrictRequest<DefaultBodyType>) {
  let body: unknown;
  try {
    body = await request.clone().json();
  } catch {
    body = undefined;
  }
  db.requests.push({
    method: request.method,
    path: new URL(request.url).pathname,
    headers: Object.fromEntries(request.headers.entries()),
    body,
  });
}

function csrfRejected(request: StrictRequest<DefaultBodyType>) {
  return request.headers.get('x-miclub-csrf') !== '1';
}

export const handlers = [
  http.get('/api/context', () => HttpResponse.json(db.context)),

  http.post('/api/login', async ({ request }) => {
    await record(request);
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!request.headers.get('recaptcha-token')) return apiError('ERR_RECAPTCHA');
    const { user, password } = (await request.json()) as { user?: string; password?: string };
    if (!user || !password) return apiError('ERR_INVALID_ARGUMENT');
    const member = findMember(user);
    if (!member || member.password !== password) return apiError('ERR_INVALID_CREDENTIALS');
    if (!member.emailVerified) return apiError('ERR_EMAIL_NOT_VERIFIED', { action: VERIFY_EMAIL_ACTION });
    db.challenge = { member, otp: MOCK_OTP };
    return HttpResponse.json(CHALLENGE);
  }),

  http.post('/api/resend-otp', async ({ request }) => {
    await record(request);
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.challenge) return apiError('ERR_OTP_EXPIRED');
    return HttpResponse.json(CHALLENGE);
  }),

  http.post('/api/validate-otp', async ({ request }) => {
    await record(request);
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
      user: userOf(member),
      has_missions: member.hasMissions,
      is_user_migrating: member.migrating,
    });
  }),

  http.post('/api/refresh', async ({ request }) => {
    await record(request);
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    if (!db.session) {
      document.cookie = 'is-logged=; Path=/; Max-Age=0';
      return apiError('ERR_UNAUTHENTICATED');
    }
    return HttpResponse.json({ expiresInSeconds: 900 });
  }),

  http.post('/api/logout', async ({ request }) => {
    await record(request);
    if (csrfRejected(request)) return apiError('ERR_CSRF');
    db.session = null;
    document.cookie = 'is-logged=; Path=/; Max-Age=0';
    return new HttpResponse(null, { status: 204 });
  }),

  http.get('/api/profile', async ({ request }) => {
    await record(request);
    if (!db.session) return apiError('ERR_UNAUTHENTICATED');
    return HttpResponse.json(userOf(db.session));
  }),

  http.get('/api/balance', async ({ request }) => {
    await record(request);
    if (!db.session) return apiError('ERR_UNAUTHENTICATED');
    if (db.session.balance === null) return apiError('ERR_NO_CLUB_ACCOUNT');
    return HttpResponse.json(
      { balance: db.session.balance, updatedAt: '2026-11-20T15:00:00Z' },
      { headers: { 'Cache-Control': 'no-store' } },
    );
  }),
];
