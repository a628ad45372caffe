/**
 * POST /api/validate-otp: the code step. The gateway answers with the member and sets the
 * httpOnly session cookies; the `token` in the body is deliberately ignored by the web app.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type LoginUser = {
  name: string;
  last_name?: string;
  mother_surname?: string;
  email?: string;
};

export type ValidateOtpResponse = {
  token?: unknown;
  user: LoginUser;
  has_missions: boolean;
  is_user_migrating: boolean;
};

/** What the web app keeps from the answer: never the token. */
export type LoginResult = {
  name: string;
  hasMissions: boolean;
  isUserMigrating: boolean;
};

export async function validateOtp(otp: string): Promise<LoginResult> {
  const response = await api.post<ValidateOtpResponse>('/api/validate-otp', { otp });
  return {
    name: typeof response?.user?.name === 'string' ? response.user.name : '',
    hasMissions: response?.has_missions === true,
    isUserMigrating: response?.is_user_migrating === true,
  };
}

export function getValidateOtpMutationOptions() {
  return { mutationKey: ['validate-otp'] as const, mutationFn: validateOtp };
}

export function useValidateOtp() {
  return useMutation(getValidateOtpMutationOptions());
}
