/**
 * POST /api/terms-and-conditions: the member accepts or rejects the terms in force. The gateway
 * records the version it holds now, not one the browser names.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

export type TermsDecided = ResponseOf<'/api/terms-and-conditions', 'post'>;

/**
 * The member's decision: `agreement` is "accepted", "rejected", or absent or null while they never
 * decided (the document types it as a plain string, so it is compared with those two values).
 */
export type TermsAgreement = TermsDecided['terms_agreement'];

export function decideTerms(accept: boolean): Promise<TermsDecided> {
  const body: BodyOf<'/api/terms-and-conditions', 'post'> = { acceptTermsAndConditions: accept };
  return api.post<TermsDecided>('/api/terms-and-conditions', body);
}

export function getDecideTermsMutationOptions() {
  return { mutationKey: ['decide-terms'] as const, mutationFn: decideTerms };
}

export function useDecideTerms() {
  return useMutation(getDecideTermsMutationOptions());
}
