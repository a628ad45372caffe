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

/** Deletes every personal answer kept for offline use; never fails. */
export async function purgePersonalCache(): Promise<void> {
  try {
    await cacheStorage()?.delete(PERSONAL_CACHE_NAME);
  } catch {
    // Storage refused (private mode, quota): nothing was kept either.
  }
}

/** Keeps `body` as the last answer of `path`; a failure only costs the offline copy. */
export async function keepPersonal(path: string, body: unknown): Promise<void> {
  try {
    const cache = await cacheStorage()?.open(PERSONAL_CACHE_NAME);
    await cache?.put(path, new Response(JSON.stringify(body), { headers: { 'Content-Type': 'application/json' } }));
  } catch {
    // Quota or private mode: the card still works online.
  }
}

/** The last answer kept for `path`, or null. */
export async function readPersonal<T>(path: string): Promise<T | null> {
  try {
    const storage = cacheStorage();
    if (!storage || !(await storage.has(PERSONAL_CACHE_NAME))) return null;
    const response = await (await storage.open(PERSONAL_CACHE_NAME)).match(path);
    return response ? ((await response.json()) as T) : null;
  } catch {
    return null;
  }
}
