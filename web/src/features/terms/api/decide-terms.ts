/**
 * POST /api/terms-and-conditions: the member accepts or rejects the terms in force. The gateway
 * records the version it holds now, not one the browser names.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type TermsAgreement = { agreement: 'accepted' | 'rejected' | null; event_date: string | null };
export type TermsDecided = { terms_agreement: TermsAgreement; version: string };

export function decideTerms(accept: boolean): Promise<TermsDecided> {
  return api.post<TermsDecided>('/api/terms-and-conditions', { acceptTermsAndConditions: accept });
}

export function getDecideTermsMutationOptions() {
  return { mutationKey: ['decide-terms'] as const, mutationFn: decideTerms };
}

export function useDecideTerms() {
  return useMutation(getDecideTermsMutationOptions());
}
