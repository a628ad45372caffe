/**
 * POST /api/validate-otp: the code step. The gateway answers with the member and sets the
 * httpOnly session cookies; the `token` in the body is deliberately ignored by the web app.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

export type ValidateOtpResponse = ResponseOf<'/api/validate-otp', 'post'>;

/** The member as login returns it ("User returned by login", spec section 3). */
export type LoginUser = ValidateOtpResponse['user'];

/** What the web app keeps from the answer: never the token. */
export type LoginResult = {
  name: LoginUser['name'];
  hasMissions: ValidateOtpResponse['has_missions'];
  isUserMigrating: ValidateOtpResponse['is_user_migrating'];
};

export async function validateOtp(otp: string): Promise<LoginResult> {
  const body: BodyOf<'/api/validate-otp', 'post'> = { otp };
  const response = await api.post<ValidateOtpResponse>('/api/validate-otp', body);
  // Read defensively all the same: a login never fails over the shape of its answer.
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
