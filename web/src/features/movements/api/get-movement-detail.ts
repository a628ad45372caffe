/**
 * GET /api/movements/{movementId}: one of the member's movements explained (#21): for a
 * purchase's accrual the lines by category with the rule, rate and pesos of each, as computed
 * when the purchase was posted; pending or confirmed, and when.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, ApiError } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

import { movementsQueryKey } from './get-movements';

export type MovementDetail = ResponseOf<'/api/movements/{movementId}', 'get'>;

/** The purchase of an accrual; `lines` is null when no breakdown was stored (older purchases). */
export type PurchaseDetail = NonNullable<MovementDetail['purchase']>;

export function getMovementDetail(movementId: string, signal?: AbortSignal): Promise<MovementDetail> {
  return api.get<MovementDetail>(`/api/movements/${encodeURIComponent(movementId)}`, { signal, cache: 'no-store' });
}

export function getMovementDetailQueryOptions(movementId: string) {
  return queryOptions({
    // Under the movements' key: whatever refreshes the list refreshes the details too.
    queryKey: [...movementsQueryKey, 'detail', movementId] as const,
    queryFn: ({ signal }) => getMovementDetail(movementId, signal),
  });
}

/** The states of a movement's explanation: 404 (not the member's, or none) and 400 are "not found". */
export type MovementDetailStatus =
  | { state: 'loading' }
  | { state: 'success'; detail: MovementDetail }
  | { state: 'not-found' }
  | { state: 'failed' };

export function useMovementDetail(movementId: string, options: { enabled?: boolean } = {}) {
  const query = useQuery({ ...getMovementDetailQueryOptions(movementId), enabled: options.enabled ?? true });
  let status: MovementDetailStatus;
  if (query.data) status = { state: 'success', detail: query.data };
  else if (query.error instanceof ApiError && (query.error.status === 404 || query.error.status === 400))
    status = { state: 'not-found' };
  else if (query.error) status = { state: 'failed' };
  else status = { state: 'loading' };
  return { status, refetch: query.refetch, isFetching: query.isFetching };
}
