/** POST /api/security/sessions/close-others: closes every session of the member but this one. */
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

import { securityEventsQueryKey } from './get-security-events';
import { sessionsQueryKey } from './get-sessions';

export type OtherSessionsClosed = ResponseOf<'/api/security/sessions/close-others', 'post'>;

export function closeOtherSessions(): Promise<OtherSessionsClosed> {
  return api.post<OtherSessionsClosed>('/api/security/sessions/close-others');
}

export function getCloseOtherSessionsMutationOptions() {
  return { mutationKey: ['security', 'close-others'] as const, mutationFn: closeOtherSessions };
}

export function useCloseOtherSessions() {
  const queryClient = useQueryClient();
  return useMutation({
    ...getCloseOtherSessionsMutationOptions(),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: sessionsQueryKey });
      void queryClient.invalidateQueries({ queryKey: securityEventsQueryKey });
    },
  });
}
