/**
 * POST /api/terms-and-conditions: the member accepts or rejects the terms in force. The browser
 * names the version it showed; the gateway records the version in force and refuses (409
 * ERR_CONFLICT) when that is no longer the one shown, so a decision always applies to the text
 * the member read.
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

/** Accept or reject; `version` is the version of the text the member was shown. */
export type TermsDecisionInput = { accept: boolean; version?: string };

export function decideTerms({ accept, version }: TermsDecisionInput): Promise<TermsDecided> {
  const body: BodyOf<'/api/terms-and-conditions', 'post'> = { acceptTermsAndConditions: accept, version };
  return api.post<TermsDecided>('/api/terms-and-conditions', body);
}

export function getDecideTermsMutationOptions() {
  return { mutationKey: ['decide-terms'] as const, mutationFn: decideTerms };
}

export function useDecideTerms() {
  return useMutation(getDecideTermsMutationOptions());
}
