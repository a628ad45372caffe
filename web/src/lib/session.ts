/**
 * Who is logged in, as far as the screen needs to know. The session itself is the gateway's
 * httpOnly cookie; this holds display state only (name, has_missions), persisted in localStorage
 * so a reload keeps the member's name on screen while the `is-logged` cookie says the session
 * lives. No token or secret is ever written here (DESIGN.md, "The browser").
 */
import { hasLoggedCookie } from './cookies';
import { createStore, useStore } from './store';

export type SessionState = {
  /** True after the code step, or on load while the gateway's `is-logged` cookie is present. */
  isLoggedIn: boolean;
  /**
   * True once this page load has checked the session with the gateway: right after the code
   * step, or after renewing a session restored from a reload. Member queries wait for it.
   */
  isConfirmed: boolean;
  name: string | null;
  hasMissions: boolean;
};

export const SESSION_STORAGE_KEY = 'miclub:session';

type PersistedDisplayState = { name: string | null; hasMissions: boolean };

const anonymous: SessionState = {
  isLoggedIn: false,
  isConfirmed: false,
  name: null,
  hasMissions: false,
};

function readPersisted(): PersistedDisplayState | null {
  try {
    const raw = window.localStorage.getItem(SESSION_STORAGE_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<PersistedDisplayState>;
    return {
      name: typeof parsed.name === 'string' ? parsed.name : null,
      hasMissions: parsed.hasMissions === true,
    };
  } catch {
    return null;
  }
}

function writePersisted(state: SessionState): void {
  try {
    if (state.isLoggedIn) {
      const display: PersistedDisplayState = { name: state.name, hasMissions: state.hasMissions };
      window.localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify(display));
    } else {
      window.localStorage.removeItem(SESSION_STORAGE_KEY);
    }
  } catch {
    // Storage can be unavailable (private mode, quota); the session still works without it.
  }
}

/** Reads the cookie and the persisted display state; run once at start-up (and by tests). */
export function initialSessionState(): SessionState {
  if (!hasLoggedCookie()) {
    writePersisted(anonymous);
    return anonymous;
  }
  const persisted = readPersisted();
  return {
    isLoggedIn: true,
    isConfirmed: false,
    name: persisted?.name ?? null,
    hasMissions: persisted?.hasMissions ?? false,
  };
}

export const sessionStore = createStore<SessionState>(anonymous);
sessionStore.subscribe(() => writePersisted(sessionStore.get()));

export function restoreSession(): void {
  sessionStore.set(initialSessionState());
}

/** LoginConfirmed: the code step succeeded. */
export function startSession(user: { name: string | null; hasMissions: boolean }): void {
  sessionStore.set({ isLoggedIn: true, isConfirmed: true, name: user.name, hasMissions: user.hasMissions });
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
  sessionStore.set(anonymous);
}

export function useSession(): SessionState {
  return useStore(sessionStore);
}
