/**
 * POST /api/profile/email/confirm: the token of the link `/confirmar-correo?token=…`; no session
 * needed. Read as a query keyed by the token, not a mutation: opening the link is one look-up
 * whose answer the page shows, and a query sends it once however often the page renders
 * (a token is spent on first use: a second POST answers `alreadyConfirmed` while the address is
 * still the member's confirmed one, and 404 once it is not).
 */
import { queryOptions, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';
import { ONE_SHOT_QUERY_OPTIONS } from '@/lib/one-shot-query';

import { profileQueryKey } from './get-profile';

export type EmailConfirmed = ResponseOf<'/api/profile/email/confirm', 'post'>;

export function confirmEmail(token: string): Promise<EmailConfirmed> {
  const body: BodyOf<'/api/profile/email/confirm', 'post'> = { token };
  return api.post<EmailConfirmed>('/api/profile/email/confirm', body);
}

export function getConfirmEmailQueryOptions(token: string) {
  return queryOptions({
    queryKey: ['email-confirmation', token] as const,
    queryFn: () => confirmEmail(token),
    ...ONE_SHOT_QUERY_OPTIONS,
  });
}

export function useConfirmEmail(token: string | null) {
  const queryClient = useQueryClient();
  const query = useQuery({ ...getConfirmEmailQueryOptions(token ?? ''), enabled: Boolean(token) });
  const confirmed = query.isSuccess;
  useEffect(() => {
    // A member who is logged in sees the confirmed email in Mis Datos from now on.
    if (confirmed) void queryClient.invalidateQueries({ queryKey: profileQueryKey, exact: true });
  }, [confirmed, queryClient]);
  return query;
}
