/**
 * POST /api/registration/verification-email: the action of ERR_EMAIL_NOT_VERIFIED. 202 whether
 * or not the user is a member waiting for verification, so the page always says the same.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export function resendVerificationEmail(user: string): Promise<void> {
  return api.post<void>('/api/registration/verification-email', { user });
}

export function getResendVerificationEmailMutationOptions() {
  return { mutationKey: ['registration', 'verification-email'] as const, mutationFn: resendVerificationEmail };
}

export function useResendVerificationEmail() {
  return useMutation(getResendVerificationEmailMutationOptions());
}
