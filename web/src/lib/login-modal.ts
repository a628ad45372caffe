/**
 * Whether the login modal is open and where to go after logging in (spec section 2: "a login
 * modal can be opened with an optional redirect URL"). Any screen may open it.
 */
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

/**
 * Only paths of this site: an open redirect to another origin is refused. What counts is where the
 * browser resolves it: URL parsing drops tabs and newlines, so "/\t/evil.example" is
 * "//evil.example", another host, and the router would leave the site for it.
 */
export function safeRedirect(url: string | null | undefined): string | null {
  if (!url || !url.startsWith('/') || url.startsWith('//') || url.startsWith('/\\')) return null;
  let resolved: URL;
  try {
    resolved = new URL(url, window.location.origin);
  } catch {
    return null;
  }
  if (resolved.origin !== window.location.origin) return null;
  return resolved.pathname + resolved.search + resolved.hash;
}
