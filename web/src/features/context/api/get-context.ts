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
    /** True only before the first answer (or failure): later refetches keep the last value. */
    isResolving: query.isPending && query.fetchStatus !== 'idle',
  };
}
