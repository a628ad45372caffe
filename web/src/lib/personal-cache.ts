/**
 * The one place the portal keeps a member's data beyond the page: the member card's last answer
 * (name, card number, balance), so the card opens at the till without a network (#21). It is the
 * documented exception to "nothing personal in browser storage" (README, architecture): Cache
 * Storage, written only from an answer the gateway gave a logged-in member, deleted on every
 * logout (asked for, forced, or by a 401) and at every login, so one member's card is never shown
 * to the next person on the device.
 */

/** The cache's name; a new name is a new format (the old one is purged like any other). */
export const PERSONAL_CACHE_NAME = 'miclub-personal-v1';

function cacheStorage(): CacheStorage | null {
  // Absent outside secure contexts and in test environments.
  return typeof caches === 'undefined' ? null : caches;
}

/**
 * The last operation asked for. The browser runs Cache Storage operations in parallel, in no set
 * order (a slow delete may end after an open asked later, which then makes the cache anew), so
 * each one here starts only once the one asked before it has ended: a card kept just before a
 * logout is deleted by its purge, and a read asked after a purge never sees what it deletes.
 */
let lastOperation: Promise<unknown> = Promise.resolve();

/** Runs `operation` after every one asked before it; `operation` never fails. */
function inTurn<T>(operation: () => Promise<T>): Promise<T> {
  const result = lastOperation.then(operation);
  lastOperation = result;
  return result;
}

/** Deletes every personal answer kept for offline use; never fails. */
export function purgePersonalCache(): Promise<void> {
  return inTurn(async () => {
    try {
      await cacheStorage()?.delete(PERSONAL_CACHE_NAME);
    } catch {
      // Storage refused (private mode, quota): nothing was kept either.
    }
  });
}

/** Keeps `body` as the last answer of `path`; a failure only costs the offline copy. */
export function keepPersonal(path: string, body: unknown): Promise<void> {
  return inTurn(async () => {
    try {
      const cache = await cacheStorage()?.open(PERSONAL_CACHE_NAME);
      await cache?.put(path, new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }));
    } catch {
      // Quota or private mode: the card still works online.
    }
  });
}

/** The last answer kept for `path`, or null. */
export function readPersonal<T>(path: string): Promise<T | null> {
  return inTurn(async () => {
    try {
      const storage = cacheStorage();
      if (!storage || !(await storage.has(PERSONAL_CACHE_NAME))) return null;
      const response = await (await storage.open(PERSONAL_CACHE_NAME)).match(path);
      return response ? ((await response.json()) as T) : null;
    } catch {
      return null;
    }
  });
}
