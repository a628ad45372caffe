/**
 * PUT /api/profile: replaces the editable fields of Mis Datos. The answer is the updated member
 * (written into the profile query) and whether a confirmation link went to a new email.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

import { profileQueryKey, type MemberProfile } from './get-profile';

/** The body of docs/api.md: an empty string or gender 0 clears an optional field. */
export type ProfileUpdate = {
  email: string;
  name: string;
  last_name: string;
  mother_surname: string;
  phone_number: string;
  birth_date: string;
  gender_id: number;
};

export type ProfileUpdated = { user: MemberProfile; emailConfirmationSent: boolean };

export function updateProfile(update: ProfileUpdate): Promise<ProfileUpdated> {
  return api.put<ProfileUpdated>('/api/profile', update);
}

export function getUpdateProfileMutationOptions() {
  return { mutationKey: ['update-profile'] as const, mutationFn: updateProfile };
}

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    ...getUpdateProfileMutationOptions(),
    onSuccess: (answer) => queryClient.setQueryData(profileQueryKey, answer.user),
  });
}
