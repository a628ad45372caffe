/**
 * GET /api/card: what the member shows at the till (name, card number, balance), never cached by
 * HTTP. Each answer is also kept in the personal cache (lib/personal-cache.ts) so the card opens
 * offline; `getSavedCardQueryOptions` reads that copy back.
 */
import { queryOptions } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';
import { keepPersonal, readPersonal } from '@/lib/personal-cache';
import { sessionEpoch, sessionStore } from '@/lib/session';

export type MemberCard = ResponseOf<'/api/card', 'get'>;

export const CARD_PATH = '/api/card';

export async function getCard(signal?: AbortSignal): Promise<MemberCard> {
  const askedIn = sessionEpoch();
  const card = await api.get<MemberCard>(CARD_PATH, {
    signal,
    cache: 'no-store',
    headers: { 'Cache-Control': 'no-store' },
  });
  // A logout while the answer was on its way has purged the cache already, and a login since
  // may be another member's: only an answer of the session still open is kept.
  if (sessionStore.get().isLoggedIn && sessionEpoch() === askedIn) await keepPersonal(CARD_PATH, card);
  return card;
}

export const cardQueryKey = ['card'] as const;

export function getCardQueryOptions() {
  return queryOptions({
    queryKey: cardQueryKey,
    queryFn: ({ signal }) => getCard(signal),
    // Asked whenever the card is shown: the balance at the till should be today's.
    staleTime: 0,
    // Offline the request fails at once (and the saved card is shown) instead of waiting paused.
    networkMode: 'always',
  });
}

export function getSavedCardQueryOptions() {
  return queryOptions({
    queryKey: [...cardQueryKey, 'saved'] as const,
    queryFn: async () => (await readPersonal<MemberCard>(CARD_PATH)) ?? null,
    staleTime: Infinity,
    networkMode: 'always',
  });
}
