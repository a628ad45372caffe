/** Spec section 8 for the login and code steps. */
import { ApiError, NetworkError } from '@/lib/api-client';
import { toDisplayError, type DisplayError } from '@/lib/errors';

import { LOGIN_MESSAGES } from '../messages';

export const LOGIN_GENERIC_ERROR = LOGIN_MESSAGES.genericError;

/** Missing response or 500 → the generic text; otherwise the server's message, capitalised. */
export function loginErrorToDisplay(error: unknown): DisplayError {
  return toDisplayError(error, LOGIN_GENERIC_ERROR);
}

/** The identifier pushed with `login_fallido`. */
export function loginErrorCode(error: unknown): string {
  if (error instanceof ApiError) return error.code ?? `HTTP_${error.status}`;
  if (error instanceof NetworkError) return 'SIN_RESPUESTA';
  return 'ERROR_CLIENTE';
}

/** Code-step failures after which only a new login can help. */
export function endsChallenge(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.code === 'ERR_OTP_EXPIRED' || error.code === 'ERR_OTP_TOO_MANY_ATTEMPTS')
  );
}
