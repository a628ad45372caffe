/** Cookies the browser code reads or writes. The session cookies are httpOnly and never seen here. */

export const USER_ID_COOKIE = 'user_id';
/** Set and cleared by the gateway; readable by JS and holds no secret (docs/api.md). */
export const IS_LOGGED_COOKIE = 'is-logged';
/**
 * Set by the gateway beside the access cookie and dropped by the browser a minute before it
 * (docs/api.md): while it is here the access cookie still works, so a reloaded page can ask for
 * the member's data without renewing the session first.
 */
export const SESSION_FRESH_COOKIE = 'session-fresh';

const ONE_YEAR_SECONDS = 60 * 60 * 24 * 365;

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [rawKey, ...rest] = part.split('=');
    if (rawKey?.trim() === name) return decodeURIComponent(rest.join('=').trim());
  }
  return null;
}

function writeCookie(name: string, value: string, maxAgeSeconds: number): void {
  const secure = window.location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAgeSeconds}; SameSite=Lax${secure}`;
}

/** RFC 4122 version 4 UUID; `crypto.randomUUID` only exists in secure contexts. */
export function randomUuid(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Creates the anonymous visitor id on first load (spec section 1); keeps an existing one. */
export function ensureUserIdCookie(): string {
  const existing = readCookie(USER_ID_COOKIE);
  if (existing) return existing;
  const id = randomUuid();
  writeCookie(USER_ID_COOKIE, id, ONE_YEAR_SECONDS);
  return id;
}

export function hasLoggedCookie(): boolean {
  const value = readCookie(IS_LOGGED_COOKIE);
  return value !== null && value !== '' && value !== 'false';
}

export function hasFreshSessionCookie(): boolean {
  return readCookie(SESSION_FRESH_COOKIE) === 'true';
}

/** The gateway clears them on logout; clearing them here too covers a logout call that never arrived. */
export function clearLoggedCookie(): void {
  writeCookie(IS_LOGGED_COOKIE, '', 0);
  writeCookie(SESSION_FRESH_COOKIE, '', 0);
}
