/** GET /api/profile: the logged-in member's data; also confirms a session restored on reload. */
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type TermsAgreement = {
  agreement: 'accepted' | 'rejected' | null;
  event_date: string | null;
};

/**
 * "User returned by login" (spec section 3, docs/api.md), with the three fields only the profile
 * routes add: whether the email is confirmed and the member's document (read-only).
 */
export type MemberProfile = {
  name: string;
  last_name: string;
  mother_surname: string;
  phone_number: string;
  gender_id: number | null;
  birth_date: string | null;
  email: string;
  terms_agreement: TermsAgreement | null;
  email_confirmed?: boolean;
  document_type?: 'RUT' | 'FOREIGN' | string;
  document_number?: string;
};

export function getProfile(signal?: AbortSignal): Promise<MemberProfile> {
  return api.get<MemberProfile>('/api/profile', { signal });
}

export const profileQueryKey = ['profile'] as const;

export function getProfileQueryOptions() {
  return queryOptions({
    queryKey: profileQueryKey,
    queryFn: ({ signal }) => getProfile(signal),
    staleTime: 5 * 60_000,
  });
}

export function useProfile(options: { enabled?: boolean } = {}) {
  return useQuery({ ...getProfileQueryOptions(), enabled: options.enabled ?? true });
}

/** The member's terms decision as another route answered it (terms and conditions). */
export function setProfileTermsAgreement(queryClient: QueryClient, agreement: TermsAgreement): void {
  queryClient.setQueryData<MemberProfile>(profileQueryKey, (profile) =>
    profile ? { ...profile, terms_agreement: agreement } : profile,
  );
}
