/**
 * POST /api/password-recovery/reset: step 2. 204 when the password was changed; the gateway then
 * revokes every session of the member. Its 422s carry the field they belong to (`code`,
 * `newPassword`); ERR_OTP_EXPIRED and ERR_OTP_TOO_MANY_ATTEMPTS end the pending recovery.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

export type PasswordReset = BodyOf<'/api/password-recovery/reset', 'post'>;
/** No body: the 204 is the answer. */
type PasswordWasReset = ResponseOf<'/api/password-recovery/reset', 'post'>;

export function resetPassword(reset: PasswordReset): Promise<PasswordWasReset> {
  return api.post<PasswordWasReset>('/api/password-recovery/reset', reset);
}

export function getResetPasswordMutationOptions() {
  return { mutationKey: ['password-recovery', 'reset'] as const, mutationFn: resetPassword };
}

export function useResetPassword() {
  return useMutation(getResetPasswordMutationOptions());
}
