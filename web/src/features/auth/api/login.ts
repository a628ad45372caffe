/** POST /api/login: the password step. Success means the password was validated and a code sent. */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { getRecaptchaToken } from '@/lib/recaptcha';

export type LoginInput = {
  user: string;
  password: string;
  recaptchaSiteKey: string | null;
};

/** The pending one-time-code challenge (its id travels in the httpOnly `mc_challenge` cookie). */
export type LoginChallenge = {
  destination: string;
  expiresInSeconds: number;
  resendAfterSeconds: number;
};

export async function login({ user, password, recaptchaSiteKey }: LoginInput): Promise<LoginChallenge> {
  const token = await getRecaptchaToken(recaptchaSiteKey, 'login');
  return api.post<LoginChallenge>('/api/login', { user, password }, { headers: { 'recaptcha-token': token } });
}

export function getLoginMutationOptions() {
  return { mutationKey: ['login'] as const, mutationFn: login };
}

export function useLogin() {
  return useMutation(getLoginMutationOptions());
}
