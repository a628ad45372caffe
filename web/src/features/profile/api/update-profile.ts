/**
 * PUT /api/profile: replaces the editable fields of Mis Datos. The answer is the updated member
 * (written into the profile query) and whether a confirmation link went to a new email.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

import { profileQueryKey } from './get-profile';

/**
 * The request: the editable fields, plus `currentPassword` (step-up) when the email differs from
 * the member's current one. Without it such a change answers 400 ERR_INVALID_ARGUMENT, with a
 * wrong one 422 ERR_WRONG_PASSWORD, both with `field: currentPassword`; 429 ERR_TOO_MANY_ATTEMPTS
 * (with Retry-After) once the password throttle is reached.
 */
export type ProfileUpdateRequest = BodyOf<'/api/profile', 'put'>;

/**
 * The editable fields of docs/api.md as the form holds them: every one always sent, so an empty
 * string or gender 0 clears an optional field.
 */
export type ProfileUpdate = {
  [F in Exclude<keyof ProfileUpdateRequest, 'currentPassword'>]-?: NonNullable<ProfileUpdateRequest[F]>;
};

export type ProfileUpdated = ResponseOf<'/api/profile', 'put'>;

export function updateProfile(update: ProfileUpdateRequest): Promise<ProfileUpdated> {
  return api.put<ProfileUpdated>('/api/profile', update);
}

export function getUpdateProfileMutationOptions() {
  return {
    mutationKey: ['update-profile'] as const,
    mutationFn: updateProfile,
    // The request may carry the password: it leaves memory with the form, not minutes later.
    gcTime: 0,
  };
}

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    ...getUpdateProfileMutationOptions(),
    onSuccess: (answer) => queryClient.setQueryData(profileQueryKey, answer.user),
  });
}
