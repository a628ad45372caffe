/**
 * POST /api/password-recovery: step 1. The gateway answers the same neutral message whether or
 * not the member exists, mails a code when it does, and keeps the pending recovery in the
 * httpOnly `mc_reset` cookie.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { getRecaptchaToken } from '@/lib/recaptcha';

export type RecoveryRequestInput = {
  user: string;
  recaptchaSiteKey: string | null;
};

export type RecoveryChallenge = {
  /** The neutral text to show as is ("Si el RUT o documento está registrado, …"). */
  message: string;
  expiresInSeconds: number;
  resendAfterSeconds: number;
};

export async function requestRecovery({ user, recaptchaSiteKey }: RecoveryRequestInput): Promise<RecoveryChallenge> {
  const token = await getRecaptchaToken(recaptchaSiteKey, 'password_recovery');
  return api.post<RecoveryChallenge>('/api/password-recovery', { user }, { headers: { 'recaptcha-token': token } });
}

export function getRequestRecoveryMutationOptions() {
  return { mutationKey: ['password-recovery'] as const, mutationFn: requestRecovery };
}

export function useRequestRecovery() {
  return useMutation(getRequestRecoveryMutationOptions());
}
