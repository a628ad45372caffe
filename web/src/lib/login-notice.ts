/**
 * A message for whoever lands on /login next, such as the farewell after unsubscribing or the
 * notice of a forced logout: the session is reset first (which sends the page to /login), so the
 * text cannot travel in the navigation itself. /login shows it and clears it once read.
 */
import { createStore, useStore } from './store';

/** Shown after any forced logout: a 401 outside /api/login, or a renewal refused (idle or absolute limit). */
export const SESSION_EXPIRED_NOTICE = 'Tu sesión expiró. Vuelve a iniciar sesión.';

export const loginNoticeStore = createStore<string | null>(null);

export function setLoginNotice(message: string): void {
  loginNoticeStore.set(message);
}

export function clearLoginNotice(): void {
  loginNoticeStore.set(null);
}

export function useLoginNotice(): string | null {
  return useStore(loginNoticeStore);
}
