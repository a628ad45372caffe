/** GET /api/terms-and-conditions: the terms in force, for anyone (logged in or not). */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

/** `body` is plain text: paragraphs are separated by a blank line. */
export type Terms = ResponseOf<'/api/terms-and-conditions', 'get'>;

export function getTerms(signal?: AbortSignal): Promise<Terms> {
  return api.get<Terms>('/api/terms-and-conditions', { signal });
}

export const termsQueryKey = ['terms-and-conditions'] as const;

export function getTermsQueryOptions() {
  return queryOptions({
    queryKey: termsQueryKey,
    queryFn: ({ signal }) => getTerms(signal),
    staleTime: 10 * 60_000,
  });
}

export function useTerms() {
  return useQuery(getTermsQueryOptions());
}
