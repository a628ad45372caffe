/** GET /api/promotions (anonymous, public): the promotions of /promociones. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type Promotion = {
  id: string;
  title: string;
  description: string;
  imageUrl: string;
  linkUrl: string;
  /** A short label on the card ("Nuevo", "Solo lunes"); may be empty. */
  badge: string;
  /** ISO dates, inclusive. */
  startsOn: string;
  endsOn: string;
};

export function getPromotions(signal?: AbortSignal): Promise<{ promotions: Promotion[] }> {
  return api.get<{ promotions: Promotion[] }>('/api/promotions', { signal });
}

export function getPromotionsQueryOptions() {
  return queryOptions({
    queryKey: ['content', 'promotions'] as const,
    queryFn: ({ signal }) => getPromotions(signal),
    select: (data) => data.promotions ?? [],
    staleTime: 60_000,
  });
}

export function usePromotions() {
  return useQuery(getPromotionsQueryOptions());
}
