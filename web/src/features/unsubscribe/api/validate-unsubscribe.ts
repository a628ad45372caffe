/**
 * POST /api/unsubscribe/validate: step 1. The RUT or document and the email must be the
 * member's own (422 ERR_IDENTITY_MISMATCH otherwise); the answer says whether the member already
 * unsubscribed, and when.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type UnsubscribeIdentity = { user: string; email: string };
export type UnsubscribeValidation =
  | { alreadyUnsubscribed: false }
  | { alreadyUnsubscribed: true; unsubscribedAt: string };

export function validateUnsubscribe(identity: UnsubscribeIdentity): Promise<UnsubscribeValidation> {
  return api.post<UnsubscribeValidation>('/api/unsubscribe/validate', identity);
}

export function getValidateUnsubscribeMutationOptions() {
  return { mutationKey: ['unsubscribe', 'validate'] as const, mutationFn: validateUnsubscribe };
}

export function useValidateUnsubscribe() {
  return useMutation(getValidateUnsubscribeMutationOptions());
}
