/** GET /api/security/sessions: the member's open sessions, the current one first. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

export type OpenSessions = ResponseOf<'/api/security/sessions', 'get'>;
export type OpenSession = OpenSessions['sessions'][number];

export function getSessions(signal?: AbortSignal): Promise<OpenSessions> {
  return api.get<OpenSessions>('/api/security/sessions', { signal });
}

export const sessionsQueryKey = ['security', 'sessions'] as const;

export function getSessionsQueryOptions() {
  return queryOptions({
    queryKey: sessionsQueryKey,
    queryFn: ({ signal }) => getSessions(signal),
    // What another device did a moment ago matters here: read again on every visit.
    staleTime: 0,
  });
}

export function useSessions(options: { enabled?: boolean } = {}) {
  return useQuery({ ...getSessionsQueryOptions(), enabled: options.enabled ?? true });
}
