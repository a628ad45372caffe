/**
 * POST /api/profile/email/restore: the token of the link `/restaurar-correo?token=…` that the
 * notice "Tu correo de Mi Club cambió" sends to the previous address. For 7 days it puts that
 * address back and revokes every session of the member; no session needed. Sent once, as a query
 * keyed by the token, like the confirmation link (confirm-email.ts).
 */
import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';
import { ONE_SHOT_QUERY_OPTIONS } from '@/lib/one-shot-query';

export type EmailRestored = ResponseOf<'/api/profile/email/restore', 'post'>;

export function restoreEmail(token: string): Promise<EmailRestored> {
  const body: BodyOf<'/api/profile/email/restore', 'post'> = { token };
  return api.post<EmailRestored>('/api/profile/email/restore', body);
}

export function getRestoreEmailQueryOptions(token: string) {
  return queryOptions({
    queryKey: ['email-restoration', token] as const,
    queryFn: () => restoreEmail(token),
    ...ONE_SHOT_QUERY_OPTIONS,
  });
}

export function useRestoreEmail(token: string | null) {
  return useQuery({ ...getRestoreEmailQueryOptions(token ?? ''), enabled: Boolean(token) });
}
