/** GET /api/unsubscribe/reasons: the reasons the member can choose in step 2 (session required). */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type UnsubscribeReason = { id: number; label: string; requiresText: boolean };

export async function getUnsubscribeReasons(signal?: AbortSignal): Promise<UnsubscribeReason[]> {
  const answer = await api.get<{ reasons: UnsubscribeReason[] }>('/api/unsubscribe/reasons', { signal });
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
