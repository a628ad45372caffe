/**
 * GET /api/registration: the browser's registration in progress (its id lives in the httpOnly
 * `mc_registration` cookie). A reload resumes at `step` with what was entered; 204 (no cookie)
 * or 404 ERR_REGISTRATION_EXPIRED (the cookie's flow is gone) means there is none, so the page
 * starts at step 1.
 * Read once when /registro opens: from then on the steps' own answers drive the page.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, ApiError } from '@/lib/api-client';
import type { Schemas } from '@/lib/api-types';

/**
 * The flow as the gateway shows it. `step` is 2 or 3; `identity` is always there in practice (the
 * gateway's schema allows it absent or null), `personalData` once step 2 was saved.
 */
export type RegistrationView = Schemas['RegistrationView'];

/** Step 1's document: a RUT with the ID card's serial number, or a foreign document. */
export type RegistrationIdentity = NonNullable<RegistrationView['identity']>;

/** Step 2's fields as the gateway holds them. */
export type RegistrationPersonalData = NonNullable<RegistrationView['personalData']>;

/** The flow in progress, or null when there is none. Other failures are thrown. */
export async function getRegistration(signal?: AbortSignal): Promise<RegistrationView | null> {
  try {
    const view = await api.get<RegistrationView | undefined>('/api/registration', { signal, cache: 'no-store' });
    return view ?? null;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

export const registrationQueryKey = ['registration'] as const;

export function getRegistrationQueryOptions() {
  return queryOptions({
    queryKey: registrationQueryKey,
    queryFn: ({ signal }) => getRegistration(signal),
    retry: false,
    // Read fresh each time /registro opens; never refetched behind the member's back.
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

export function useRegistration() {
  return useQuery(getRegistrationQueryOptions());
}
