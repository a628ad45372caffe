/**
 * POST /api/password-recovery: step 1. The gateway answers the same neutral message whether or
 * not the member exists, mails a code when it does, and keeps the pending recovery in the
 * httpOnly `mc_reset` cookie.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';
import { getRecaptchaToken } from '@/lib/recaptcha';

type RecoveryRequest = BodyOf<'/api/password-recovery', 'post'>;

/** The body's `user`, and the site key (client-only) that decides how the token is obtained. */
export type RecoveryRequestInput = Pick<RecoveryRequest, 'user'> & {
  recaptchaSiteKey: string | null;
};

/**
 * The pending recovery: its `message` is the neutral text to show as is ("Si el RUT o documento
 * está registrado, …"), with the code's lifetime and the resend cooldown.
 */
export type RecoveryChallenge = ResponseOf<'/api/password-recovery', 'post'>;

export async function requestRecovery({ user, recaptchaSiteKey }: RecoveryRequestInput): Promise<RecoveryChallenge> {
  const token = await getRecaptchaToken(recaptchaSiteKey, 'password_recovery');
  const body: RecoveryRequest = { user };
  return api.post<RecoveryChallenge>('/api/password-recovery', body, { headers: { 'recaptcha-token': token } });
}

export function getRequestRecoveryMutationOptions() {
  return { mutationKey: ['password-recovery'] as const, mutationFn: requestRecovery };
}

export function useRequestRecovery() {
  return useMutation(getRequestRecoveryMutationOptions());
}
