/**
 * The pure rules of the unsubscribe: the checks of both steps, the texts with dates, and where
 * each gateway failure is shown.
 */
import { ApiError } from '@/lib/api-client';
import { capitalizeFirst, toDisplayError, type DisplayError } from '@/lib/errors';
import { formatDate } from '@/lib/format';
import { charCount, isValidEmail } from '@/lib/personal-data';

import type { UnsubscribeReason } from '../api/get-unsubscribe-reasons';
import { UNSUBSCRIBE_COPY, UNSUBSCRIBE_MESSAGES } from '../messages';

/** Any failure but a mismatch or a field: no answer, a 5xx, an unexpected code. */
export const UNSUBSCRIBE_FAILED = UNSUBSCRIBE_COPY.failed;
export const REASON_TEXT_MAX_LENGTH = 500;

/** "21 de noviembre de 2026" in Chile, or the raw value if it is not a date. */
function chileDay(iso: string): string {
  return formatDate(iso) ?? iso;
}

/** Step 1's answer for a member who already unsubscribed; without the date when the gateway has none. */
export function alreadyUnsubscribedText(unsubscribedAt: string | null): string {
  if (!unsubscribedAt) return UNSUBSCRIBE_COPY.alreadyNoDate;
  return UNSUBSCRIBE_COPY.alreadyOn(chileDay(unsubscribedAt));
}

/** Shown after the gateway confirmed, on the logged-out page the member lands on. */
export function farewellText(unsubscribedAt: string): string {
  return UNSUBSCRIBE_COPY.farewell(chileDay(unsubscribedAt));
}

export type IdentityField = 'user' | 'email' | 'currentPassword';
export type IdentityErrors = Partial<Record<IdentityField, string>>;
export type ReasonField = 'reasonId' | 'reasonText';
export type ReasonErrors = Partial<Record<ReasonField, string>>;

export function validateEmail(email: string): string | undefined {
  return isValidEmail(email) ? undefined : UNSUBSCRIBE_MESSAGES.email;
}

export function validateCurrentPassword(password: string): string | undefined {
  return password ? undefined : UNSUBSCRIBE_MESSAGES.currentPassword;
}

export function validateReason(reason: UnsubscribeReason | undefined, text: string): ReasonErrors {
  if (!reason) return { reasonId: UNSUBSCRIBE_MESSAGES.reason };
  const length = charCount(text.trim());
  if (reason.requiresText && length === 0) return { reasonText: UNSUBSCRIBE_MESSAGES.reasonTextEmpty };
  if (length > REASON_TEXT_MAX_LENGTH) return { reasonText: UNSUBSCRIBE_MESSAGES.reasonTextTooLong };
  return {};
}

/** Where a gateway failure of either step is shown. */
export type UnsubscribeFailure =
  /** The identity does not match the member's (the spec's "validation failure"). */
  | { kind: 'mismatch'; display: DisplayError }
  | { kind: 'field'; field: IdentityField | ReasonField; message: string }
  | { kind: 'general'; display: DisplayError };

const FIELDS = new Set(['user', 'email', 'currentPassword', 'reasonId', 'reasonText']);
const SAYS_HOW_TO_GO_ON = new Set<string | undefined>([
  'ERR_ALREADY_UNSUBSCRIBED',
  'ERR_TOO_MANY_ATTEMPTS',
  'ERR_EMAIL_CHANGED_RECENTLY',
]);

export function unsubscribeFailure(error: unknown): UnsubscribeFailure {
  if (!(error instanceof ApiError) || !error.body || error.status >= 500) {
    return { kind: 'general', display: { message: UNSUBSCRIBE_FAILED } };
  }
  if (error.code === 'ERR_IDENTITY_MISMATCH') {
    return { kind: 'mismatch', display: toDisplayError(error, UNSUBSCRIBE_FAILED) };
  }
  const implied = error.code === 'ERR_INVALID_RUT' ? 'user' : error.code === 'ERR_WRONG_PASSWORD' ? 'currentPassword' : undefined;
  const field = error.body.field ?? implied;
  if (field && FIELDS.has(field) && error.body.message.trim()) {
    return { kind: 'field', field: field as IdentityField | ReasonField, message: capitalizeFirst(error.body.message) };
  }
  // These say how to go on in their own words: leaving twice, the password throttle (429, with
  // Retry-After) and the week after an email change (the day and hour a member may leave).
  if (SAYS_HOW_TO_GO_ON.has(error.code)) {
    return { kind: 'general', display: toDisplayError(error, UNSUBSCRIBE_FAILED) };
  }
  return { kind: 'general', display: { message: UNSUBSCRIBE_FAILED } };
}
