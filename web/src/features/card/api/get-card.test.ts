import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';

import { readPersonal } from '@/lib/personal-cache';
import { endSession, startSession } from '@/lib/session';
import { installCacheStorage } from '@/testing/cache-storage';
import { anaCard } from '@/testing/fixtures/card';
import { server } from '@/testing/mocks/server';

import { CARD_PATH, getCard } from './get-card';

/** `/api/card` answers Ana's card once `release` is called. */
function cardAnsweredLater(): () => void {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.use(
    http.get(CARD_PATH, async () => {
      await released;
      return HttpResponse.json(anaCard, { headers: { 'Cache-Control': 'no-store' } });
    }),
  );
  return release;
}

afterEach(() => endSession());

describe('getCard', () => {
  it('keeps the answer of the session still open for the card offline', async () => {
    installCacheStorage();
    await startSession({ name: 'Ana', hasMissions: true });
    const release = cardAnsweredLater();
    const asked = getCard();
    release();
    await asked;
    expect(await readPersonal(CARD_PATH)).toEqual(anaCard);
  });

  it('never keeps an answer that arrives after its member logged out and another logged in', async () => {
    installCacheStorage();
    await startSession({ name: 'Ana', hasMissions: true });
    const release = cardAnsweredLater();
    const asked = getCard();
    // Ana leaves and Bruno logs in on the same browser while her answer is on its way.
    endSession();
    await startSession({ name: 'Bruno', hasMissions: false });
    release();
    expect(await asked).toEqual(anaCard);
    expect(await readPersonal(CARD_PATH)).toBeNull();
  });
});
