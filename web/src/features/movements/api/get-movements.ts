/**
 * GET /api/movements: one page (10 items, newest first) of the member's movements in a calendar
 * month of America/Santiago (Mis Movimientos, the spec's historic events).
 */
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';

import { api, ApiError } from '@/lib/api-client';
import type { QueryOf, ResponseOf } from '@/lib/api-types';

/**
 * The values the gateway sends in a movement's `kind` and `status`, for their labels; the
 * document types both as plain strings, and an unknown one gets a generic label.
 */
export type MovementKind = 'accrual' | 'redemption' | 'expiration' | 'adjustment';
export type MovementStatus = 'pending' | 'confirmed';

export type MovementsPage = ResponseOf<'/api/movements', 'get'>;

/** One movement; `amount` is in signed whole pesos. */
export type Movement = MovementsPage['items'][number];

/** The web app always names the page, though the gateway defaults it to 1. */
export type MovementsRequest = Required<QueryOf<'/api/movements', 'get'>>;

export function getMovements({ year, month, page }: MovementsRequest, signal?: AbortSignal): Promise<MovementsPage> {
  const query = new URLSearchParams({ year: String(year), month: String(month), page: String(page) });
  return api.get<MovementsPage>(`/api/movements?${query.toString()}`, { signal, cache: 'no-store' });
}

export const movementsQueryKey = ['movements'] as const;

export function getMovementsQueryOptions(request: MovementsRequest) {
  return queryOptions({
    queryKey: [...movementsQueryKey, request.year, request.month, request.page] as const,
    queryFn: ({ signal }) => getMovements(request, signal),
    // Another page of the same month keeps the current one on screen until it arrives.
    placeholderData: (previous, previousQuery) =>
      previousQuery?.queryKey[1] === request.year && previousQuery.queryKey[2] === request.month
        ? keepPreviousData(previous)
        : undefined,
  });
}

/** The states of Mis Movimientos: like the balance's, 406 is a member without a club account. */
export type MovementsStatus =
  | { state: 'loading' }
  | { state: 'success'; page: MovementsPage }
  | { state: 'without-account' }
  | { state: 'failed' };

export function useMovements(request: MovementsRequest, options: { enabled?: boolean } = {}) {
  const query = useQuery({ ...getMovementsQueryOptions(request), enabled: options.enabled ?? true });
  let status: MovementsStatus;
  if (query.data) status = { state: 'success', page: query.data };
  else if (query.error instanceof ApiError && query.error.status === 406) status = { state: 'without-account' };
  else if (query.error) status = { state: 'failed' };
  else status = { state: 'loading' };
  return {
    status,
    /** True while another page of the month is on its way (the current one stays shown). */
    isPlaceholder: query.isPlaceholderData,
    refetch: query.refetch,
    isFetching: query.isFetching,
  };
}
