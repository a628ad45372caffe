/** GET /api/faqs?audience=general|login (anonymous, public): the FAQs of each FAQ page. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type FaqAudience = 'general' | 'login';
export type Faq = { id: string; question: string; answer: string };

export function getFaqs(audience: FaqAudience, signal?: AbortSignal): Promise<{ faqs: Faq[] }> {
  return api.get<{ faqs: Faq[] }>(`/api/faqs?audience=${audience}`, { signal });
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
