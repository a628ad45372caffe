/**
 * Query options for the request a mailed link makes when it is opened (/confirmar-correo,
 * /restaurar-correo): its token is spent on first use, so the request is sent once however often
 * the page renders, never again by itself (no retry, refetch or expiry), and its answer survives
 * a logout the same answer causes (`meta[KEEP_ON_LOGOUT]`), since it is what the page shows.
 */

/** `meta` key that spares a query when a logout clears every member query. */
export const KEEP_ON_LOGOUT = 'keepOnLogout';

export const ONE_SHOT_QUERY_OPTIONS = {
  retry: false,
  staleTime: Infinity,
  gcTime: Infinity,
  refetchOnWindowFocus: false,
  refetchOnReconnect: false,
  meta: { [KEEP_ON_LOGOUT]: true },
} as const;
