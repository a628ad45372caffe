/** GET /api/alliances (anonymous, public): partner (bank card) benefits of /alianzas. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type Alliance = {
  id: string;
  partner: string;
  title: string;
  description: string;
  imageUrl: string;
  linkUrl: string;
  /** The fine print: who, when, up to how much. */
  conditions: string;
  startsOn: string;
  endsOn: string;
};

export function getAlliances(signal?: AbortSignal): Promise<{ alliances: Alliance[] }> {
  return api.get<{ alliances: Alliance[] }>('/api/alliances', { signal });
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
