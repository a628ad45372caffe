/** GET /api/profile: the logged-in member's data; also confirms a session restored on reload. */
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

/**
 * "User returned by login" (spec section 3, docs/api.md) as the profile routes answer it, with
 * whether the email is confirmed and the member's document (read-only).
 */
export type MemberProfile = ResponseOf<'/api/profile', 'get'>;

/** The member's terms decision: "accepted", "rejected", or null while they never decided. */
export type TermsAgreement = MemberProfile['terms_agreement'];

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
