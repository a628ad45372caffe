/**
 * POST /api/unsubscribe: step 2, sent once the member confirms in the modal. The gateway erases
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
  return { mutationKey: ['unsubscribe'] as const, mutationFn: unsubscribe };
}

export function useUnsubscribe() {
  return useMutation(getUnsubscribeMutationOptions());
}
