/** POST /api/resend-otp: a new code for the pending login (sets resendSuccess). */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

import type { LoginChallenge } from './login';

export function resendOtp(): Promise<LoginChallenge> {
  return api.post<LoginChallenge>('/api/resend-otp');
}

export function getResendOtpMutationOptions() {
  return { mutationKey: ['resend-otp'] as const, mutationFn: resendOtp };
}

export function useResendOtp() {
  return useMutation(getResendOtpMutationOptions());
}
