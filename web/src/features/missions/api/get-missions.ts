/**
 * GET /api/missions: the member's missions in force (and those that ended lately) with their
 * progress. 409 ERR_MISSIONS_NOT_READY is the spec's CONFLICT state (the member's purchase
 * history is still being loaded); every other failure is the generic one.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api, ApiError } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

/**
 * The values the gateway sends in `goalKind` and `status`; the document types both as plain
 * strings, so a mission's fields stay `string` and the UI treats any other value as the default.
 */
export type MissionGoalKind = 'amount' | 'purchases';
export type MissionStatus = 'in_progress' | 'completed' | 'expired';

export type MissionsResponse = ResponseOf<'/api/missions', 'get'>;

/**
 * One mission: `goal` in pesos or purchases, `progress` never above it, `startsOn` and `endsOn`
 * ISO dates (inclusive, America/Santiago), `completedAt` absent or null until completed.
 */
export type Mission = MissionsResponse['missions'][number];

export function getMissions(signal?: AbortSignal): Promise<MissionsResponse> {
  return api.get<MissionsResponse>('/api/missions', { signal, cache: 'no-store' });
}

export const missionsQueryKey = ['missions'] as const;

export function getMissionsQueryOptions() {
  return queryOptions({
    queryKey: missionsQueryKey,
    queryFn: ({ signal }) => getMissions(signal),
    // Progress moves with every purchase: asked again each time the section opens.
    staleTime: 0,
  });
}

/**
 * The missions states of spec section 4: NOT_START (the query waits for the session), LOADING,
 * SUCCESS, FAILED, CONFLICT (409) and RESTART (asked again after a conflict or a failure).
 */
export type MissionsStatus =
  | { state: 'not-start' }
  | { state: 'loading' }
  | { state: 'success'; missions: Mission[] }
  | { state: 'conflict' }
  | { state: 'failed' }
  | { state: 'restart' };

export function isMissionsConflict(error: unknown): boolean {
  return error instanceof ApiError && error.status === 409;
}

export function useMissions(options: { enabled?: boolean } = {}) {
  const enabled = options.enabled ?? true;
  const query = useQuery({ ...getMissionsQueryOptions(), enabled });
  let status: MissionsStatus;
  if (query.data) status = { state: 'success', missions: query.data.missions ?? [] };
  else if (query.error && query.isFetching) status = { state: 'restart' };
  else if (isMissionsConflict(query.error)) status = { state: 'conflict' };
  else if (query.error) status = { state: 'failed' };
  else if (!enabled) status = { state: 'not-start' };
  else status = { state: 'loading' };
  return { status, restart: () => void query.refetch() };
}
