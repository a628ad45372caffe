/**
 * GET /api/profile/genders (public): the gender options of Mis Datos and of registration step 2.
 * Any failure falls back to the spec's fixed list (spec section 8), so a form never waits on it
 * nor shows an error for it. Shared from lib because two features read the same endpoint and
 * one request serves both.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export type GenderOption = { id: number; label: string };

/** Spec section 3, "Gender options (fixed fallback list)". */
export const FALLBACK_GENDERS: readonly GenderOption[] = [
  { id: 1, label: 'Femenino' },
  { id: 2, label: 'Masculino' },
  { id: 3, label: 'Prefiero no decir' },
  { id: 6, label: 'No me identifico con las opciones disponibles' },
  { id: 7, label: 'Otros' },
];

function isGenderList(value: unknown): value is GenderOption[] {
  return (
    Array.isArray(value) &&
    value.length > 0 &&
    value.every(
      (item) =>
        typeof item === 'object' &&
        item !== null &&
        Number.isInteger((item as GenderOption).id) &&
        typeof (item as GenderOption).label === 'string' &&
        (item as GenderOption).label.trim() !== '',
    )
  );
}

/** The gateway's list, or the fixed one when the call fails or answers something unusable. */
export async function getGenders(signal?: AbortSignal): Promise<readonly GenderOption[]> {
  try {
    const answer = await api.get<unknown>('/api/profile/genders', { signal });
    return isGenderList(answer) ? answer : FALLBACK_GENDERS;
  } catch (error) {
    // An aborted request is react-query's to handle; anything else is the fallback.
    if (signal?.aborted) throw error;
    return FALLBACK_GENDERS;
  }
}

export const gendersQueryKey = ['genders'] as const;

export function getGendersQueryOptions() {
  return queryOptions({
    queryKey: gendersQueryKey,
    queryFn: ({ signal }) => getGenders(signal),
    staleTime: 60 * 60_000,
  });
}

/** Always a list: the fixed one until (and unless) the gateway's arrives. */
export function useGenders(): readonly GenderOption[] {
  return useQuery(getGendersQueryOptions()).data ?? FALLBACK_GENDERS;
}
