/** POST /api/logout: revokes the session and clears the cookies (always 204). */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

/** No body: the document's only success is the 204. */
type LogoutResponse = ResponseOf<'/api/logout', 'post'>;

export function logout(): Promise<LogoutResponse> {
  return api.post<LogoutResponse>('/api/logout');
}

export function getLogoutMutationOptions() {
  return { mutationKey: ['logout'] as const, mutationFn: logout };
}

export function useLogoutRequest() {
  return useMutation(getLogoutMutationOptions());
}
