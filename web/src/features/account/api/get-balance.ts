/** GET /api/balance: the club account balance in pesos, never cached (spec section 7). */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, ApiError } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

/** `updatedAt` is absent or null when accounts does not know when it last changed. */
export type Balance = ResponseOf<'/api/balance', 'get'>;

export function getBalance(signal?: AbortSignal): Promise<Balance> {
  return api.get<Balance>('/api/balance', {
    signal,
    cache: 'no-store',
    headers: { 'Cache-Control': 'no-store' },
  });
}

export const balanceQueryKey = ['balance'] as const;

/**
 * What the balance query holds: the balance, or null for a member without a club account (the
 * gateway's 406). That is an answer, kept fresh like a balance, not an error: an error would be
 * asked again by the card that mounts moments after the page load's early request.
 */
export type BalanceAnswer = Balance | null;

async function getBalanceAnswer(signal?: AbortSignal): Promise<BalanceAnswer> {
  try {
    return await getBalance(signal);
  } catch (error) {
    if (error instanceof ApiError && error.status === 406) return null;
    throw error;
  }
}

/** How long a balance just read counts as current: long enough for the card that was waiting for it. */
export const BALANCE_FRESH_MS = 2_000;

export function getBalanceQueryOptions() {
  return queryOptions({
    queryKey: balanceQueryKey,
    queryFn: ({ signal }) => getBalanceAnswer(signal),
    // Asked again whenever shown, except in the moment after the page load's own early request
    // (app/router.tsx); the client's default retry never repeats a 401.
    staleTime: BALANCE_FRESH_MS,
  });
}

/** The four balance states of spec section 4. */
export type BalanceStatus =
  | { state: 'loading' }
  | { state: 'success'; balance: Balance }
  | { state: 'without-account' }
  | { state: 'failed' };

export function useBalance(options: { enabled?: boolean } = {}) {
  const query = useQuery({ ...getBalanceQueryOptions(), enabled: options.enabled ?? true });
  let status: BalanceStatus;
  if (query.data) status = { state: 'success', balance: query.data };
  else if (query.data === null) status = { state: 'without-account' };
  else if (query.error) status = { state: 'failed' };
  else status = { state: 'loading' };
  return { status, refetch: query.refetch, isFetching: query.isFetching };
}
