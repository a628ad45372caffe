/**
 * POST /api/profile/password: 204 when changed; the gateway then revokes every session of the
 * member and clears the cookies, so the web app logs out ("to-logout"). Its 422s
 * (ERR_WRONG_PASSWORD, ERR_WEAK_PASSWORD) carry the field they belong to and are no logout.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type PasswordChange = { currentPassword: string; newPassword: string };

export function changePassword(change: PasswordChange): Promise<void> {
  return api.post<void>('/api/profile/password', change);
}

export function getChangePasswordMutationOptions() {
  return { mutationKey: ['change-password'] as const, mutationFn: changePassword };
}

export function useChangePassword() {
  return useMutation(getChangePasswordMutationOptions());
}
