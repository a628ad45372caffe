/** The words a member reads for a security event and for the browser and system of a session. */
import { SECURITY_COPY as M } from '../messages';

const EVENT_LABELS: Readonly<Record<string, string>> = {
  login_succeeded: M.eventLoginSucceeded,
  wrong_password: M.eventWrongPassword,
  wrong_code: M.eventWrongCode,
  password_changed: M.eventPasswordChanged,
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

/** Whether the event is a failed attempt, which the list marks. */
export function isFailedAttempt(kind: string): boolean {
  return kind === 'wrong_password' || kind === 'wrong_code';
}

/** "Chrome en Windows"; the unknown halves are said so. */
export function deviceLabel(browser: string | null | undefined, os: string | null | undefined): string {
  if (!browser && !os) return M.unknownBrowser;
  return M.deviceOf(browser ?? M.unknownBrowser, os ?? M.unknownSystem);
}
