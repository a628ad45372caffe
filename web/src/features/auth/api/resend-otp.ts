/** POST /api/resend-otp: a new code for the pending login (sets resendSuccess). */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

import type { LoginChallenge } from './login';

/**
 * The same `OtpSent` as the password step's answer, so it replaces the challenge on screen (the
 * compiler checks the two stay one shape); the code step keeps the destination it already shows
 * when this one comes back empty.
 */
export function resendOtp(): Promise<LoginChallenge> {
  return api.post<ResponseOf<'/api/resend-otp', 'post'>>('/api/resend-otp');
}

export function getResendOtpMutationOptions() {
  return { mutationKey: ['resend-otp'] as const, mutationFn: resendOtp };
}

export function useResendOtp() {
  return useMutation(getResendOtpMutationOptions());
}
