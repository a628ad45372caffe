import { describe, expect, it } from 'vitest';

import { installCacheStorage } from '@/testing/cache-storage';

import { keepPersonal, PERSONAL_CACHE_NAME } from './personal-cache';
import {
  endSession,
  HAS_MISSIONS_STORAGE_KEY,
  LEGACY_SESSION_STORAGE_KEY,
  restoreSession,
  sessionStore,
  startSession,
} from './session';

/** Every value of localStorage and sessionStorage, as one string to search. */
function storedText(): string {
  const values = (storage: Storage) =>
    Array.from({ length: storage.length }, (_, i) => {
      const key = storage.key(i) ?? '';
      return `${key}=${storage.getItem(key) ?? ''}`;
    });
  return [...values(window.localStorage), ...values(window.sessionStorage)].join('\n');
}

describe('the session display state', () => {
  it("never writes the member's name to browser storage, only whether missions are shown", async () => {
    await startSession({ name: 'Ana', hasMissions: true });
    expect(storedText()).not.toContain('Ana');
    expect(window.localStorage.getItem(HAS_MISSIONS_STORAGE_KEY)).toBe('true');
    expect(window.localStorage.length).toBe(1);
    expect(window.sessionStorage.length).toBe(0);
  });

  it('writes nothing at all for a member without missions', async () => {
    await startSession({ name: 'Bruno', hasMissions: false });
    expect(window.localStorage.length).toBe(0);
    expect(window.sessionStorage.length).toBe(0);
  });

  it('removes the has-missions flag on logout', async () => {
    await startSession({ name: 'Ana', hasMissions: true });
    endSession();
    expect(window.localStorage.length).toBe(0);
  });

  it('restores a session after a reload without a name, which GET /api/profile gives back later', async () => {
    await startSession({ name: 'Ana', hasMissions: true });
    document.cookie = 'is-logged=true; Path=/';
    restoreSession();
    expect(sessionStore.get()).toEqual({
      isLoggedIn: true,
      isConfirmed: false,
      isRestored: true,
      name: null,
      hasMissions: true,
    });
  });

  it('trusts a restored session at once while the gateway says its access cookie still works', () => {
    document.cookie = 'is-logged=true; Path=/';
    document.cookie = 'session-fresh=true; Path=/';
    restoreSession();
    expect(sessionStore.get()).toMatchObject({ isLoggedIn: true, isConfirmed: true, isRestored: true });
  });

  it('forgets the has-missions flag when the is-logged cookie is gone', async () => {
    await startSession({ name: 'Ana', hasMissions: true });
    restoreSession();
    expect(sessionStore.get().isLoggedIn).toBe(false);
    expect(window.localStorage.getItem(HAS_MISSIONS_STORAGE_KEY)).toBeNull();
  });

  it('removes the name an earlier version stored, on start, with or without a session', () => {
    window.localStorage.setItem(LEGACY_SESSION_STORAGE_KEY, JSON.stringify({ name: 'Ana', hasMissions: true }));
    document.cookie = 'is-logged=true; Path=/';
    restoreSession();
    expect(window.localStorage.getItem(LEGACY_SESSION_STORAGE_KEY)).toBeNull();
    expect(sessionStore.get().name).toBeNull();
    expect(storedText()).not.toContain('Ana');

    document.cookie = 'is-logged=; Path=/; Max-Age=0';
    window.localStorage.setItem(LEGACY_SESSION_STORAGE_KEY, JSON.stringify({ name: 'Ana', hasMissions: true }));
    restoreSession();
    expect(window.localStorage.length).toBe(0);
  });

  it('deletes the card kept by whoever used the device before, before the new session starts', async () => {
    // A slow disk: the purge takes longer than anything the new member's pages ask for.
    const storage = installCacheStorage({ latency: { delete: 50 } });
    await keepPersonal('/api/card', { name: 'Carla', cardNumber: '111122223333' });
    expect(storage.namesNow()).toEqual([PERSONAL_CACHE_NAME]);
    const keptWhenStarted: string[][] = [];
    const stopWatching = sessionStore.subscribe(() => keptWhenStarted.push(storage.namesNow()));
    try {
      await startSession({ name: 'Ana', hasMissions: false });
    } finally {
      stopWatching();
    }
    expect(sessionStore.get().isLoggedIn).toBe(true);
    expect(keptWhenStarted).toEqual([[]]);
  });
});
