/** GET /api/banners (anonymous, public): the campaign banners of the /mi-club home. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type Banner = {
  id: string;
  title: string;
  subtitle: string;
  imageUrl: string;
  imageAlt: string;
  /** Empty when the banner links nowhere. */
  linkUrl: string;
};

export function getBanners(signal?: AbortSignal): Promise<{ banners: Banner[] }> {
  return api.get<{ banners: Banner[] }>('/api/banners', { signal });
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
