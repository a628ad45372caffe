/**
 * The pure rules of the password recovery: what the form checks before calling the gateway
 * (with the gateway's own messages), and where each gateway failure is shown.
 */
import { ApiError } from '@/lib/api-client';
import { capitalizeFirst, toDisplayError, type DisplayError } from '@/lib/errors';
import { passwordLengthError } from '@/lib/password';

import { RECOVERY_MESSAGES } from '../messages';

/** Shown for a failure with no answer, a 500, or a body that is not the gateway's error JSON. */
export const RECOVERY_GENERIC_ERROR = RECOVERY_MESSAGES.genericError;
export const CODE_LENGTH = 6;
export const CODE_MESSAGE = RECOVERY_MESSAGES.codeIncomplete;

export type ResetField = 'code' | 'newPassword';
export type ResetErrors = Partial<Record<ResetField, string>>;

/** Step 2's checks: six digits, and the password length rules of docs/api.md. */
export function validateReset(code: string, newPassword: string): ResetErrors {
  const errors: ResetErrors = {};
  if (!new RegExp(`^\\d{${CODE_LENGTH}}$`).test(code)) errors.code = CODE_MESSAGE;
  const password = passwordLengthError(newPassword);
  if (password) errors.newPassword = password;
  return errors;
}

export function recoveryErrorToDisplay(error: unknown): DisplayError {
  return toDisplayError(error, RECOVERY_GENERIC_ERROR);
}

/** Failures after which the pending recovery is gone: the member starts again at step 1. */
export function endsRecovery(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.code === 'ERR_OTP_EXPIRED' || error.code === 'ERR_OTP_TOO_MANY_ATTEMPTS')
  );
}

/** Step 1: a failure that belongs under the RUT or document field, with its message. */
export function userFieldFailure(error: unknown): string | null {
  if (!(error instanceof ApiError) || !error.body) return null;
  if (error.body.field === 'user' || error.code === 'ERR_INVALID_RUT') {
    return capitalizeFirst(error.body.message) || null;
  }
  return null;
}

/** Step 2: the field a failure belongs under (its `field`, or the one its code implies). */
export function resetFieldFailure(error: unknown): { field: ResetField; message: string } | null {
  if (!(error instanceof ApiError) || !error.body || endsRecovery(error)) return null;
  const { field: named, message } = error.body;
  let field: ResetField | null = null;
  if (named === 'code' || named === 'newPassword') field = named;
  else if (error.code === 'ERR_OTP_INVALID') field = 'code';
  else if (error.code === 'ERR_WEAK_PASSWORD') field = 'newPassword';
  if (!field) return null;
  return { field, message: capitalizeFirst(message) || RECOVERY_GENERIC_ERROR };
}
