/** GET /api/faqs?audience=general|login (anonymous, public): the FAQs of each FAQ page. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryOf, ResponseOf } from '@/lib/api-types';

type FaqsResponse = ResponseOf<'/api/faqs', 'get'>;

/** The two audiences the gateway accepts (the document types `audience` as a patterned string). */
export type FaqAudience = 'general' | 'login';
export type Faq = FaqsResponse['faqs'][number];

export function getFaqs(audience: FaqAudience, signal?: AbortSignal): Promise<FaqsResponse> {
  const query: Required<QueryOf<'/api/faqs', 'get'>> = { audience };
  return api.get<FaqsResponse>(`/api/faqs?${new URLSearchParams(query).toString()}`, { signal });
}

export function getFaqsQueryOptions(audience: FaqAudience) {
  return queryOptions({
    queryKey: ['content', 'faqs', audience] as const,
    queryFn: ({ signal }) => getFaqs(audience, signal),
    select: (data) => data.faqs ?? [],
    staleTime: 60_000,
  });
}

export function useFaqs(audience: FaqAudience) {
  return useQuery(getFaqsQueryOptions(audience));
}
