/**
 * Whether the login modal is open and where to go after logging in (spec section 2: "a login
 * modal can be opened with an optional redirect URL"). Any screen may open it.
 */
import { isPortalPath } from './portal-path';
import { createStore, useStore } from './store';

export type LoginModalState = { isOpen: boolean; redirectUrl: string | null };

export const loginModalStore = createStore<LoginModalState>({ isOpen: false, redirectUrl: null });

export function openLoginModal(options: { redirectUrl?: string } = {}): void {
  loginModalStore.set({ isOpen: true, redirectUrl: safeRedirect(options.redirectUrl) });
}

export function closeLoginModal(): void {
  loginModalStore.set({ isOpen: false, redirectUrl: null });
}

export function useLoginModal(): LoginModalState {
  return useStore(loginModalStore);
}

/** Only paths of this site, as the browser resolves them: an open redirect to another origin is refused. */
export function safeRedirect(url: string | null | undefined): string | null {
  if (!url || !isPortalPath(url)) return null;
  const resolved = new URL(url, window.location.origin);
  return resolved.pathname + resolved.search + resolved.hash;
}
