/** GET /api/security/events: the member's security events of the last 90 days, newest first. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

export type SecurityEvents = ResponseOf<'/api/security/events', 'get'>;
export type SecurityEvent = SecurityEvents['events'][number];

export function getSecurityEvents(signal?: AbortSignal): Promise<SecurityEvents> {
  return api.get<SecurityEvents>('/api/security/events', { signal });
}

export const securityEventsQueryKey = ['security', 'events'] as const;

export function getSecurityEventsQueryOptions() {
  return queryOptions({
    queryKey: securityEventsQueryKey,
    queryFn: ({ signal }) => getSecurityEvents(signal),
    staleTime: 0,
  });
}

export function useSecurityEvents(options: { enabled?: boolean } = {}) {
  return useQuery({ ...getSecurityEventsQueryOptions(), enabled: options.enabled ?? true });
}
