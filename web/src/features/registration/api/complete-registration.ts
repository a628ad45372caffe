/**
 * POST /api/registration/complete: step 3. 201 when the member exists (email not verified yet)
 * and the verification link was mailed to `maskedEmail`. Sending it again after a failure is
 * safe: the gateway finishes the same member.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

export type RegistrationCompletion = BodyOf<'/api/registration/complete', 'post'>;
export type RegistrationCompleted = ResponseOf<'/api/registration/complete', 'post'>;

export function completeRegistration(completion: RegistrationCompletion): Promise<RegistrationCompleted> {
  return api.post<RegistrationCompleted>('/api/registration/complete', completion);
}

export function getCompleteRegistrationMutationOptions() {
  return { mutationKey: ['registration', 'complete'] as const, mutationFn: completeRegistration };
}

export function useCompleteRegistration() {
  return useMutation(getCompleteRegistrationMutationOptions());
}
