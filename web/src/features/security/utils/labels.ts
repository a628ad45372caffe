/** The words a member reads for a security event and for the browser and system of a session. */
import { SECURITY_COPY as M } from '../messages';

const EVENT_LABELS: Readonly<Record<string, string>> = {
  login_succeeded: M.eventLoginSucceeded,
  wrong_password: M.eventWrongPassword,
  wrong_code: M.eventWrongCode,
  wrong_current_password: M.eventWrongCurrentPassword,
  password_changed: M.eventPasswordChanged,
  recovery_requested: M.eventRecoveryRequested,
  wrong_recovery_code: M.eventWrongRecoveryCode,
  password_reset: M.eventPasswordReset,
  email_changed: M.eventEmailChanged,
  session_ended: M.eventSessionEnded,
  other_sessions_ended: M.eventOtherSessionsEnded,
  all_sessions_ended: M.eventAllSessionsEnded,
};

/** The Spanish name of an event kind; a kind this build does not know still reads as something. */
export function eventLabel(kind: string): string {
  return Object.hasOwn(EVENT_LABELS, kind) ? (EVENT_LABELS[kind] ?? M.eventUnknown) : M.eventUnknown;
}

/** The kinds that are somebody's failed attempt (a wrong password or code), which the list marks. */
const FAILED_ATTEMPTS: ReadonlySet<string> = new Set([
  'wrong_password',
  'wrong_code',
  'wrong_current_password',
  'wrong_recovery_code',
]);

/** Whether the event is a failed attempt, which the list marks. */
export function isFailedAttempt(kind: string): boolean {
  return FAILED_ATTEMPTS.has(kind);
}

/** "Chrome en Windows"; the unknown halves are said so. */
export function deviceLabel(browser: string | null | undefined, os: string | null | undefined): string {
  if (!browser && !os) return M.unknownBrowser;
  return M.deviceOf(browser ?? M.unknownBrowser, os ?? M.unknownSystem);
}
