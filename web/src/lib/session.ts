/**
 * Who is logged in, as far as the screen needs to know. The session itself is the gateway's
 * httpOnly cookie. No personal data (name, email, RUT) and no token or secret is ever written to
 * browser storage (DESIGN.md, "The browser"; ASVS V14.3): after a reload the `is-logged` cookie
 * says a session may live, and the member's name comes back from `GET /api/profile` once the
 * session is renewed.
 *
 * `has_missions` is the one exception, and it is not personal: the gateway gives it only in the
 * code step's answer and no route reads it again, so a reload would otherwise lose the Misiones
 * entry until the next login. It is kept as a bare boolean under `miclub:has-missions` (written
 * only while true, removed on every logout): it tells nobody who the member is.
 */
import { hasFreshSessionCookie, hasLoggedCookie } from './cookies';
import { purgePersonalCache } from './personal-cache';
import { createStore, useStore } from './store';
import { readStoredFlag, writeStoredFlag } from './stored-flag';

export type SessionState = {
  /** True after the code step, or on load while the gateway's `is-logged` cookie is present. */
  isLoggedIn: boolean;
  /**
   * True once the access cookie is known to work: right after the code step, on load while the
   * gateway's `session-fresh` cookie is present, or after renewing a session restored from a
   * reload. Member queries wait for it.
   */
  isConfirmed: boolean;
  /**
   * True for a session restored from a reload's cookies: how long its access cookie has left is
   * unknown (at least a minute when `session-fresh` was there), so its first renewal comes early.
   */
  isRestored: boolean;
  /** In memory only: from the code step's answer, or from `GET /api/profile` after a reload. */
  name: string | null;
  hasMissions: boolean;
};

/** The only key the session writes: "true" while the member has missions, absent otherwise. */
export const HAS_MISSIONS_STORAGE_KEY = 'miclub:has-missions';
/** Where earlier versions kept the member's name: removed on every start. */
export const LEGACY_SESSION_STORAGE_KEY = 'miclub:session';

const anonymous: SessionState = {
  isLoggedIn: false,
  isConfirmed: false,
  isRestored: false,
  name: null,
  hasMissions: false,
};

/**
 * Which session this is: it changes at every login and logout, so an answer asked for in one
 * session can tell it arrived in another (a member's card must never be kept for the next one).
 */
let epoch = 0;

function readHasMissions(): boolean {
  return readStoredFlag(HAS_MISSIONS_STORAGE_KEY);
}

function writeHasMissions(state: SessionState): void {
  writeStoredFlag(HAS_MISSIONS_STORAGE_KEY, state.isLoggedIn && state.hasMissions);
}

function removeLegacyState(): void {
  try {
    window.localStorage.removeItem(LEGACY_SESSION_STORAGE_KEY);
  } catch {
    // Nothing to remove where there is no storage.
  }
}

/** Reads the cookie and the has-missions flag; run once at start-up (and by tests). */
export function initialSessionState(): SessionState {
  removeLegacyState();
  if (!hasLoggedCookie()) {
    writeHasMissions(anonymous);
    return anonymous;
  }
  return {
    isLoggedIn: true,
    isConfirmed: hasFreshSessionCookie(),
    isRestored: true,
    name: null,
    hasMissions: readHasMissions(),
  };
}

export const sessionStore = createStore<SessionState>(anonymous);
sessionStore.subscribe(() => writeHasMissions(sessionStore.get()));

export function restoreSession(): void {
  sessionStore.set(initialSessionState());
}

/**
 * LoginConfirmed: the code step succeeded. A member card kept by whoever used this device before
 * (their session ended without a logout here) is deleted first, and only then is the session
 * started: no page of this member can read it, nor keep anything that the purge would then take.
 * The login waits for it before leaving for the member's pages.
 */
export async function startSession(user: { name: string | null; hasMissions: boolean }): Promise<void> {
  await purgePersonalCache();
  epoch += 1;
  sessionStore.set({
    isLoggedIn: true,
    isConfirmed: true,
    isRestored: false,
    name: user.name,
    hasMissions: user.hasMissions,
  });
}

/** The session restored from a reload was checked with the gateway. */
export function confirmSession(): void {
  sessionStore.set((previous) =>
    previous.isLoggedIn && !previous.isConfirmed ? { ...previous, isConfirmed: true } : previous,
  );
}

/** The name as `GET /api/profile` gives it now. */
export function updateSessionName(name: string | null): void {
  sessionStore.set((previous) =>
    previous.isLoggedIn && name && name !== previous.name ? { ...previous, name } : previous,
  );
}

export function endSession(): void {
  epoch += 1;
  sessionStore.set(anonymous);
}

/** Which session this is (`epoch`): compare it before and after an answer that is kept. */
export function sessionEpoch(): number {
  return epoch;
}

export function useSession(): SessionState {
  return useStore(sessionStore);
}
