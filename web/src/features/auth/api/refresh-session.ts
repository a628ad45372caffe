/** POST /api/refresh: rotates the refresh cookie and renews the access cookie. */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

export type RefreshSessionResult = ResponseOf<'/api/refresh', 'post'>;

export function refreshSession(): Promise<RefreshSessionResult> {
  return api.post<RefreshSessionResult>('/api/refresh');
}

export function getRefreshSessionMutationOptions() {
  return { mutationKey: ['refresh-session'] as const, mutationFn: refreshSession };
}

export function useRefreshSession() {
  return useMutation(getRefreshSessionMutationOptions());
}
