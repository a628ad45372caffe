/**
 * Logout as spec section 4 describes it: login, menu, missions, profile and balance state are
 * reset (and the member card kept for offline use deleted), and `POST /api/logout` is called only if the member was logged in. A forced logout (the
 * 401 rule, or a renewal the gateway refused because the session idled out or reached its
 * absolute limit) does the same and leaves /login a notice that the session expired; a logout
 * the member asked for leaves none.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';

import { logout as logoutRequest } from '@/features/auth/api/logout';
import { contextQueryKey } from '@/features/context/api/get-context';
import { clearLoggedCookie } from '@/lib/cookies';
import { closeLoginModal } from '@/lib/login-modal';
import { clearLoginNotice, SESSION_EXPIRED_NOTICE, setLoginNotice } from '@/lib/login-notice';
import { KEEP_ON_LOGOUT } from '@/lib/one-shot-query';
import { purgePersonalCache } from '@/lib/personal-cache';
import { endSession, sessionStore } from '@/lib/session';

import { stopSessionRenewal } from './session-keeper';

type LogoutOptions = {
  /**
   * False when the gateway already ended the session itself (an unsubscribe): the browser's state
   * is reset the same way, without `POST /api/logout`.
   */
  notifyGateway?: boolean;
  /** What /login tells the member next (the farewell after unsubscribing); none by default. */
  notice?: string;
};

export async function performLogout(queryClient: QueryClient, options: LogoutOptions = {}): Promise<void> {
  const wasLoggedIn = sessionStore.get().isLoggedIn;
  // Set before the session ends: ending it is what sends a member page to /login, which reads it.
  if (options.notice) setLoginNotice(options.notice);
  else if (wasLoggedIn) clearLoginNotice();
  stopSessionRenewal();
  // Login state (and the has-missions flag in storage).
  endSession();
  closeLoginModal();
  // Menu state: the selection is the URL's (features/account/stores/account-menu.ts), and a logged
  // out /mi-club/* page leaves for plain /login, so the next login opens Mi Cuenta.
  // Balance, profile, missions: every member query, so that nothing personal can be shown again
  // (the back button, a cached screen). The portal context is not the member's, and the answer
  // of a link just opened (KEEP_ON_LOGOUT) is what the page on screen shows.
  queryClient.removeQueries({
    predicate: (query) => query.queryKey[0] !== contextQueryKey[0] && query.meta?.[KEEP_ON_LOGOUT] !== true,
  });
  queryClient.getMutationCache().clear();
  // The member card kept for offline use: awaited, so a logout that returned left nothing behind.
  await purgePersonalCache();
  if (!wasLoggedIn) return;
  clearLoggedCookie();
  if (options.notifyGateway === false) return;
  try {
    await logoutRequest();
  } catch {
    // The gateway clears its cookies on every logout, 503 included (it could not record the
    // revocation): the browser is logged out either way and nothing is left to retry.
  }
}

/**
 * The 401 rule: the gateway no longer knows the session. Only a member who was logged in is told
 * that the session expired; a stray 401 for a visitor changes nothing on screen.
 */
export function performForcedLogout(queryClient: QueryClient): Promise<void> {
  const wasLoggedIn = sessionStore.get().isLoggedIn;
  return performLogout(queryClient, wasLoggedIn ? { notice: SESSION_EXPIRED_NOTICE } : {});
}

export function useLogout() {
  const queryClient = useQueryClient();
  const [isLoggingOut, setIsLoggingOut] = useState(false);
  const logout = useCallback(async () => {
    setIsLoggingOut(true);
    try {
      await performLogout(queryClient);
    } finally {
      setIsLoggingOut(false);
    }
  }, [queryClient]);
  return { logout, isLoggingOut };
}
