/** GET /api/promotions (anonymous, public): the promotions of /promociones. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

type PromotionsResponse = ResponseOf<'/api/promotions', 'get'>;

/**
 * One promotion; `badge` is a short label on the card ("Nuevo", "Solo lunes") and may be empty,
 * `startsOn` and `endsOn` are ISO dates, inclusive.
 */
export type Promotion = PromotionsResponse['promotions'][number];

export function getPromotions(signal?: AbortSignal): Promise<PromotionsResponse> {
  return api.get<PromotionsResponse>('/api/promotions', { signal });
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
