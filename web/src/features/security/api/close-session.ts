/**
 * DELETE /api/security/sessions/{id}: closes one of the member's sessions; its access token is
 * refused from its next request. 404 ERR_NOT_FOUND when it is not an open session of the member
 * (closed meanwhile): the list is read again either way.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

import { securityEventsQueryKey } from './get-security-events';
import { sessionsQueryKey } from './get-sessions';

export function closeSession(id: string): Promise<void> {
  return api.delete<void>(`/api/security/sessions/${encodeURIComponent(id)}`);
}

export function getCloseSessionMutationOptions() {
  return { mutationKey: ['security', 'close-session'] as const, mutationFn: closeSession };
}

export function useCloseSession() {
  const queryClient = useQueryClient();
  return useMutation({
    ...getCloseSessionMutationOptions(),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: sessionsQueryKey });
      void queryClient.invalidateQueries({ queryKey: securityEventsQueryKey });
    },
  });
}
