/** GET /api/profile: the logged-in member's data; also confirms a session restored on reload. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type TermsAgreement = {
  agreement: 'accepted' | 'rejected' | null;
  event_date: string | null;
};

/** "User returned by login" (spec section 3, docs/api.md). */
export type MemberProfile = {
  name: string;
  last_name: string;
  mother_surname: string;
  phone_number: string;
  gender_id: number | null;
  birth_date: string | null;
  email: string;
  terms_agreement: TermsAgreement | null;
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
