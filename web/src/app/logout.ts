/**
 * Logout as spec section 4 describes it: login, menu, missions, profile and balance state are
 * reset, and `POST /api/logout` is called only if the member was logged in.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';

import { resetAccountMenu } from '@/features/account/stores/account-menu';
import { logout as logoutRequest } from '@/features/auth/api/logout';
import { contextQueryKey } from '@/features/context/api/get-context';
import { clearLoggedCookie } from '@/lib/cookies';
import { closeLoginModal } from '@/lib/login-modal';
import { endSession, sessionStore } from '@/lib/session';

import { stopSessionRenewal } from './session-keeper';

type LogoutOptions = {
  /**
   * False when the gateway already ended the session itself (an unsubscribe): the browser's state
   * is reset the same way, without `POST /api/logout`.
   */
  notifyGateway?: boolean;
};

export async function performLogout(queryClient: QueryClient, options: LogoutOptions = {}): Promise<void> {
  const wasLoggedIn = sessionStore.get().isLoggedIn;
  stopSessionRenewal();
  // Login state (and its persisted display copy).
  endSession();
  closeLoginModal();
  // Menu state.
  resetAccountMenu();
  // Balance, profile, missions: every member query; the portal context is not the member's.
  queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== contextQueryKey[0] });
  queryClient.getMutationCache().clear();
  if (!wasLoggedIn) return;
  clearLoggedCookie();
  if (options.notifyGateway === false) return;
  try {
    await logoutRequest();
  } catch {
    // The gateway clears its cookies on every logout; a lost call leaves an expired session only.
  }
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
