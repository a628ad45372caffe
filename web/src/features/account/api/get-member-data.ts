/**
 * GET /api/profile, as the join form reads it: the data the portal already holds for the member,
 * shown prefilled. It shares the profile's query key, so Mis Datos and this form read one cache
 * entry and joining (which records the terms decision) refreshes both.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

export type MemberData = ResponseOf<'/api/profile', 'get'>;

/** The same key as the profile feature's query (features may not import each other). */
export const memberDataQueryKey = ['profile'] as const;

export function getMemberData(signal?: AbortSignal): Promise<MemberData> {
  return api.get<MemberData>('/api/profile', { signal });
}

export function getMemberDataQueryOptions() {
  return queryOptions({
    queryKey: memberDataQueryKey,
    queryFn: ({ signal }) => getMemberData(signal),
    staleTime: 5 * 60_000,
  });
}

export function useMemberData(options: { enabled?: boolean } = {}) {
  return useQuery({ ...getMemberDataQueryOptions(), enabled: options.enabled ?? true });
}
