/**
 * The gateway's error answers for tests that need a refusal: `apiError('ERR_…')` builds the
 * documented body `{code, message, action?, field?}` with the code's fixed status. Status and
 * text are read from the gateway's own table (`error_codes!` in platform/src/error.rs), the one
 * place they are written, so no test keeps a copy. (docs/api.md's table says the same in prose,
 * with notes beside some texts, and platform/tests/error_catalogue_doc.rs holds it to that table.)
 */
/// <reference types="node" />
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { HttpResponse } from 'msw';

import type { Schemas } from '@/lib/api-types';

export type ApiErrorCode = Schemas['ErrorCode'];
type ErrorAction = Schemas['ErrorAction'];

/** The `http::StatusCode` names the table uses. */
const STATUS: Record<string, number> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_TIMEOUT: 408,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNPROCESSABLE_ENTITY: 422,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
  GATEWAY_TIMEOUT: 504,
};

/** Each code's status and standard text, read from the gateway's source (the tests run in Node). */
function gatewayErrors(): Record<string, { status: number; message: string }> {
  const source = readFileSync(resolve(import.meta.dirname, '../../../platform/src/error.rs'), 'utf8');
  const rows = [...source.matchAll(/"(ERR_[A-Z_]+)",\s*\w+,\s*([A-Z_]+),\s*"([^"]+)";/g)];
  return Object.fromEntries(
    rows.map(([, code = '', status = '', message = '']) => [code, { status: STATUS[status] ?? NaN, message }]),
  );
}

const GATEWAY = gatewayErrors();

/** The status and standard message the gateway gives `code`. */
export function errorOf(code: ApiErrorCode): { status: number; message: string } {
  const entry = GATEWAY[code];
  if (!entry) throw new Error(`${code} is not in the error table of platform/src/error.rs`);
  return entry;
}

/** The standard text of `code`, as a member reads it. */
export function messageOf(code: ApiErrorCode): string {
  return errorOf(code).message;
}

/** The gateway's answer for `code`; `message` replaces the standard text where the gateway says more. */
export function apiError(code: ApiErrorCode, extra: { message?: string; action?: ErrorAction; field?: string } = {}) {
  const { status, message } = errorOf(code);
  return HttpResponse.json({ code, message: extra.message ?? message, ...extra }, { status });
}

/** `action` links the gateway attaches to some errors (docs/api.md, "Errors"). */
export const VERIFY_EMAIL_ACTION: ErrorAction = {
  url: '/registro/verificar-correo',
  urlName: 'Reenviar correo de verificación',
};
export const RECOVER_PASSWORD_ACTION: ErrorAction = { url: '/recuperar-contrasena', urlName: 'Recuperar contraseña' };
export const REGISTER_ACTION: ErrorAction = { url: '/registro', urlName: 'Registrarme' };

/**
 * Field-specific texts the gateway puts in `message` instead of the standard one (docs/api.md,
 * the password rules and the simulator's limits), for tests that answer with them.
 */
export const FIELD_MESSAGES = {
  passwordShort: 'La contraseña debe tener al menos 8 caracteres.',
  passwordLong: 'La contraseña puede tener hasta 64 caracteres.',
  passwordCommon: 'Esa contraseña es muy común. Elige otra más difícil de adivinar.',
  simulatorTooLarge: 'El monto máximo por categoría es $10.000.000.',
} as const;
