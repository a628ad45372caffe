/** POST /api/login: the password step. Success means the password was validated and a code sent. */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';
import { getRecaptchaToken } from '@/lib/recaptcha';

type LoginBody = BodyOf<'/api/login', 'post'>;

/** The form's credentials, plus the site key the reCAPTCHA token is minted with (not sent). */
export type LoginInput = Pick<LoginBody, 'user' | 'password'> & { recaptchaSiteKey: string | null };

/** The pending one-time-code challenge (its id travels in the httpOnly `mc_challenge` cookie). */
export type LoginChallenge = ResponseOf<'/api/login', 'post'>;

export async function login({ user, password, recaptchaSiteKey }: LoginInput): Promise<LoginChallenge> {
  const token = await getRecaptchaToken(recaptchaSiteKey, 'login');
  const body: LoginBody = { user, password };
  return api.post<LoginChallenge>('/api/login', body, { headers: { 'recaptcha-token': token } });
}

export function getLoginMutationOptions() {
  return { mutationKey: ['login'] as const, mutationFn: login };
}

export function useLogin() {
  return useMutation(getLoginMutationOptions());
}
