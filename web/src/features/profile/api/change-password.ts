/**
 * POST /api/profile/password: 204 when changed; the gateway then revokes every session of the
 * member and clears the cookies, so the web app logs out ("to-logout"). Its 422s
 * (ERR_WRONG_PASSWORD, ERR_WEAK_PASSWORD) carry the field they belong to and are no logout.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

export type PasswordChange = BodyOf<'/api/profile/password', 'post'>;
/** No body: the 204 is the answer. */
type PasswordChanged = ResponseOf<'/api/profile/password', 'post'>;

export function changePassword(change: PasswordChange): Promise<PasswordChanged> {
  return api.post<PasswordChanged>('/api/profile/password', change);
}

export function getChangePasswordMutationOptions() {
  return { mutationKey: ['change-password'] as const, mutationFn: changePassword };
}

export function useChangePassword() {
  return useMutation(getChangePasswordMutationOptions());
}
