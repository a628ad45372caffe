/**
 * POST /api/account: a member without a club account (the balance's 406) joins in place,
 * accepting the terms in force. The gateway names the member from the session and the terms
 * version from content; the browser sends only the decision. Idempotent: a repeat (a double
 * click, a retry after a lost answer) answers the same account with `opened: false`.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';

import { balanceQueryKey, type Balance } from './get-balance';
import { memberDataQueryKey } from './get-member-data';

export type ClubAccount = ResponseOf<'/api/account', 'post'>;

export function openAccount(): Promise<ClubAccount> {
  const body: BodyOf<'/api/account', 'post'> = { acceptTermsAndConditions: true };
  return api.post<ClubAccount>('/api/account', body);
}

/** The movements' query key (Mis Movimientos), which answered 406 until now. */
const MOVEMENTS_QUERY_KEY = ['movements'] as const;

export function useOpenAccount() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationKey: ['open-account'] as const,
    mutationFn: openAccount,
    onSuccess: (account) => {
      // The balance shows at once from the answer, then is asked again like any balance.
      queryClient.setQueryData<Balance>(balanceQueryKey, {
        balance: account.balance,
        updatedAt: account.updatedAt ?? null,
      });
      void queryClient.invalidateQueries({ queryKey: balanceQueryKey });
      // The other sections that depended on the account (movements) or on the terms decision
      // (the profile's) are read again when shown.
      void queryClient.invalidateQueries({ queryKey: MOVEMENTS_QUERY_KEY });
      void queryClient.invalidateQueries({ queryKey: memberDataQueryKey });
    },
  });
}
