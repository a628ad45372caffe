/** POST /api/logout: revokes the session and clears the cookies (always 204). */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export function logout(): Promise<void> {
  return api.post<void>('/api/logout');
}

export function getLogoutMutationOptions() {
  return { mutationKey: ['logout'] as const, mutationFn: logout };
}

export function useLogoutRequest() {
  return useMutation(getLogoutMutationOptions());
}
