/**
 * POST /api/registration/verification-email: the action of ERR_EMAIL_NOT_VERIFIED. 202 whether
 * or not the user is a member waiting for verification, so the page always says the same.
 * Protected by reCAPTCHA like login: the `recaptcha-token` header, action `verification_email`.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';
import { getRecaptchaToken } from '@/lib/recaptcha';

type VerificationEmailBody = BodyOf<'/api/registration/verification-email', 'post'>;
/** No body: the 202 is the answer. */
type VerificationEmailRequested = ResponseOf<'/api/registration/verification-email', 'post'>;

/** The body's `user`, and the site key (client-only) that decides how the token is obtained. */
export type ResendVerificationEmailInput = Pick<VerificationEmailBody, 'user'> & { recaptchaSiteKey: string | null };

export async function resendVerificationEmail({
  user,
  recaptchaSiteKey,
}: ResendVerificationEmailInput): Promise<VerificationEmailRequested> {
  const token = await getRecaptchaToken(recaptchaSiteKey, 'verification_email');
  const body: VerificationEmailBody = { user };
  return api.post<VerificationEmailRequested>('/api/registration/verification-email', body, {
    headers: { 'recaptcha-token': token },
  });
}

export function getResendVerificationEmailMutationOptions() {
  return { mutationKey: ['registration', 'verification-email'] as const, mutationFn: resendVerificationEmail };
}

export function useResendVerificationEmail() {
  return useMutation(getResendVerificationEmailMutationOptions());
}
