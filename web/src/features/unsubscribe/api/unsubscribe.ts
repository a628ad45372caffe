/**
 * POST /api/unsubscribe: step 2, sent once the member confirms in the modal, with step 1's
 * identity and password again (the same step-up errors as step 1). The gateway erases
 * the member's personal data, disables the credentials, revokes every session and clears the
 * session cookies; the answer gives the date.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

/** Step 1's identity and password again, with the chosen reason and its text. */
export type UnsubscribeRequest = BodyOf<'/api/unsubscribe', 'post'>;
export type Unsubscribed = ResponseOf<'/api/unsubscribe', 'post'>;

export function unsubscribe(request: UnsubscribeRequest): Promise<Unsubscribed> {
  return api.post<Unsubscribed>('/api/unsubscribe', request);
}

export function getUnsubscribeMutationOptions() {
  return {
    mutationKey: ['unsubscribe'] as const,
    mutationFn: unsubscribe,
    // The variables hold the password: they leave memory with the flow, not minutes later.
    gcTime: 0,
  };
}

export function useUnsubscribe() {
  return useMutation(getUnsubscribeMutationOptions());
}
