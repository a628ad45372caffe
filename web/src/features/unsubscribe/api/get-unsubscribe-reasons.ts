/** GET /api/unsubscribe/reasons: the reasons the member can choose in step 2 (session required). */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

type UnsubscribeReasons = ResponseOf<'/api/unsubscribe/reasons', 'get'>;

/** One reason; `requiresText` for "Otro motivo", where the member writes the reason. */
export type UnsubscribeReason = UnsubscribeReasons['reasons'][number];

export async function getUnsubscribeReasons(signal?: AbortSignal): Promise<UnsubscribeReason[]> {
  const answer = await api.get<UnsubscribeReasons>('/api/unsubscribe/reasons', { signal });
  return answer.reasons;
}

export const unsubscribeReasonsQueryKey = ['unsubscribe', 'reasons'] as const;

export function getUnsubscribeReasonsQueryOptions() {
  return queryOptions({
    queryKey: unsubscribeReasonsQueryKey,
    queryFn: ({ signal }) => getUnsubscribeReasons(signal),
    staleTime: 60 * 60_000,
  });
}

export function useUnsubscribeReasons() {
  return useQuery(getUnsubscribeReasonsQueryOptions());
}
