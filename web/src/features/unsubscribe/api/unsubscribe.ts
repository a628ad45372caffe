/**
 * POST /api/unsubscribe: step 2, sent once the member confirms in the modal, with step 1's
 * identity and password again (the same step-up errors as step 1). The gateway erases
 * the member's personal data, disables the credentials, revokes every session and clears the
 * session cookies; the answer gives the date.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

import type { UnsubscribeIdentity } from './validate-unsubscribe';

export type UnsubscribeRequest = UnsubscribeIdentity & { reasonId: number; reasonText: string };
export type Unsubscribed = { unsubscribedAt: string };

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
