/**
 * POST /api/registration/verification-email: the action of ERR_EMAIL_NOT_VERIFIED. 202 whether
 * or not the user is a member waiting for verification, so the page always says the same.
 * Protected by reCAPTCHA like login: the `recaptcha-token` header, action `verification_email`.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { getRecaptchaToken } from '@/lib/recaptcha';

export type ResendVerificationEmailInput = { user: string; recaptchaSiteKey: string | null };

export async function resendVerificationEmail({ user, recaptchaSiteKey }: ResendVerificationEmailInput): Promise<void> {
  const token = await getRecaptchaToken(recaptchaSiteKey, 'verification_email');
  return api.post<void>('/api/registration/verification-email', { user }, { headers: { 'recaptcha-token': token } });
}

export function getResendVerificationEmailMutationOptions() {
  return { mutationKey: ['registration', 'verification-email'] as const, mutationFn: resendVerificationEmail };
}

export function useResendVerificationEmail() {
  return useMutation(getResendVerificationEmailMutationOptions());
}
