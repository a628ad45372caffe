/** GET /api/context: runtime flags ops switch without a redeploy, re-read every minute. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';
import { mergeSiteLinks, type SiteLinks } from '@/lib/site-links';

type ContextResponse = ResponseOf<'/api/context', 'get'>;

/**
 * The context as the portal uses it: the gateway's answer with its gaps filled by
 * `normalizeContext`, so the site key is never absent and every site link has a value.
 */
export type PortalContext = Omit<ContextResponse, 'recaptchaSiteKey' | 'links'> & {
  /** Null when the gateway verifies reCAPTCHA with its pass-through (standalone). */
  recaptchaSiteKey: NonNullable<ContextResponse['recaptchaSiteKey']> | null;
  /** The gateway's links over the defaults of the links it does not send. */
  links: SiteLinks;
};

/** What the portal assumes until (or unless) the gateway answers: open, both flags off. */
export const DEFAULT_CONTEXT: PortalContext = {
  portalEnabled: true,
  changePasswordEnable: false,
  isLoginMaintenance: false,
  recaptchaSiteKey: null,
  links: mergeSiteLinks(null),
};

export const CONTEXT_REFETCH_INTERVAL_MS = 60_000;

/** The answer as read: any field may be missing or of another type (an older gateway, a proxy page). */
type RawContext = Partial<Record<keyof ContextResponse, unknown>>;

export function normalizeContext(raw: unknown): PortalContext {
  const value = (typeof raw === 'object' && raw !== null ? raw : {}) as RawContext;
  return {
    portalEnabled: value.portalEnabled !== false,
    changePasswordEnable: value.changePasswordEnable === true,
    isLoginMaintenance: value.isLoginMaintenance === true,
    recaptchaSiteKey:
      typeof value.recaptchaSiteKey === 'string' && value.recaptchaSiteKey.trim() ? value.recaptchaSiteKey : null,
    links: mergeSiteLinks(value.links),
  };
}

export async function getContext(signal?: AbortSignal): Promise<PortalContext> {
  return normalizeContext(await api.get<ContextResponse>('/api/context', { signal }));
}

export const contextQueryKey = ['context'] as const;

export function getContextQueryOptions() {
  return queryOptions({
    queryKey: contextQueryKey,
    queryFn: ({ signal }) => getContext(signal),
    refetchInterval: CONTEXT_REFETCH_INTERVAL_MS,
    staleTime: CONTEXT_REFETCH_INTERVAL_MS / 2,
  });
}

/** The context, or the defaults while loading and when it cannot be read. */
export function usePortalContext() {
  const query = useQuery(getContextQueryOptions());
  return {
    context: query.data ?? DEFAULT_CONTEXT,
    /**
     * True only while the first request (with its retries) is on its way. Once it has failed the
     * portal runs on the defaults: a later attempt, which React Query makes whenever a reader
     * mounts, puts a query without data back to pending, and a spinner for it would unmount the
     * readers and start the next attempt (offline, where the member card opens, #21, that loop
     * never ended). A request paused by an offline browser counts as not on its way.
     */
    isResolving: query.isPending && query.fetchStatus === 'fetching' && query.errorUpdateCount === 0,
  };
}
