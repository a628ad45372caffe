/**
 * POST /api/unsubscribe/validate: step 1. The RUT or document and the email must be the
 * member's own (422 ERR_IDENTITY_MISMATCH otherwise), and `currentPassword` the member's password
 * (step-up: 422 ERR_WRONG_PASSWORD with `field: currentPassword`, 429 ERR_TOO_MANY_ATTEMPTS once
 * throttled); the answer says whether the member already unsubscribed, and when.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

export type UnsubscribeIdentity = BodyOf<'/api/unsubscribe/validate', 'post'>;

/**
 * Whether the member already unsubscribed; `unsubscribedAt` (RFC 3339) comes with a member who
 * did, unless the accounts service has no date for it.
 */
export type UnsubscribeValidation = ResponseOf<'/api/unsubscribe/validate', 'post'>;

export function validateUnsubscribe(identity: UnsubscribeIdentity): Promise<UnsubscribeValidation> {
  return api.post<UnsubscribeValidation>('/api/unsubscribe/validate', identity);
}

export function getValidateUnsubscribeMutationOptions() {
  return {
    mutationKey: ['unsubscribe', 'validate'] as const,
    mutationFn: validateUnsubscribe,
    // The variables hold the password: they leave memory with the flow, not minutes later.
    gcTime: 0,
  };
}

export function useValidateUnsubscribe() {
  return useMutation(getValidateUnsubscribeMutationOptions());
}
