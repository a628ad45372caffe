/** GET /api/banners (anonymous, public): the campaign banners of the /mi-club home. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

type BannersResponse = ResponseOf<'/api/banners', 'get'>;

/** One banner; `linkUrl` is empty when the banner links nowhere. */
export type Banner = BannersResponse['banners'][number];

export function getBanners(signal?: AbortSignal): Promise<BannersResponse> {
  return api.get<BannersResponse>('/api/banners', { signal });
}

export function getBannersQueryOptions() {
  return queryOptions({
    queryKey: ['content', 'banners'] as const,
    queryFn: ({ signal }) => getBanners(signal),
    select: (data) => data.banners ?? [],
    staleTime: 60_000,
  });
}

export function useBanners() {
  return useQuery(getBannersQueryOptions());
}
