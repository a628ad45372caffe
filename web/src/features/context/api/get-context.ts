/** GET /api/context: runtime flags ops switch without a redeploy, re-read every minute. */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import { mergeSiteLinks, type SiteLinks } from '@/lib/site-links';

export type PortalContext = {
  portalEnabled: boolean;
  changePasswordEnable: boolean;
  isLoginMaintenance: boolean;
  /** Null when the gateway verifies reCAPTCHA with its pass-through (standalone). */
  recaptchaSiteKey: string | null;
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

type RawContext = Partial<Record<keyof PortalContext, unknown>>;

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
  return normalizeContext(await api.get<unknown>('/api/context', { signal }));
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
