/** GET /api/alliances (anonymous, public): partner (bank card) benefits of /alianzas. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

type AlliancesResponse = ResponseOf<'/api/alliances', 'get'>;

/** One benefit; `conditions` is the fine print: who, when, up to how much. */
export type Alliance = AlliancesResponse['alliances'][number];

export function getAlliances(signal?: AbortSignal): Promise<AlliancesResponse> {
  return api.get<AlliancesResponse>('/api/alliances', { signal });
}

export function getAlliancesQueryOptions() {
  return queryOptions({
    queryKey: ['content', 'alliances'] as const,
    queryFn: ({ signal }) => getAlliances(signal),
    select: (data) => data.alliances ?? [],
    staleTime: 60_000,
  });
}

export function useAlliances() {
  return useQuery(getAlliancesQueryOptions());
}
