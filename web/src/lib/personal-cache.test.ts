import { describe, expect, it } from 'vitest';

import { installCacheStorage } from '@/testing/cache-storage';

import { keepPersonal, PERSONAL_CACHE_NAME, purgePersonalCache, readPersonal } from './personal-cache';

const card = { name: 'Ana', cardNumber: '739102645812', balance: 12345 };

describe('the personal cache', () => {
  it('reads back what was kept, and nothing once purged', async () => {
    const storage = installCacheStorage();
    await keepPersonal('/api/card', card);
    expect(storage.urlsNow(PERSONAL_CACHE_NAME)).toEqual(['http://localhost:3000/api/card']);
    expect(await readPersonal('/api/card')).toEqual(card);
    await purgePersonalCache();
    expect(storage.namesNow()).toEqual([]);
    expect(await readPersonal('/api/card')).toBeNull();
  });

  it('lets no card asked to be kept just before a logout outlive its purge, however slow the storage', async () => {
    // Opening the cache is slow and deleting it quick: the browser could finish the delete first.
    const storage = installCacheStorage({ latency: { open: 40 } });
    const keeping = keepPersonal('/api/card', card);
    const purging = purgePersonalCache();
    await Promise.all([keeping, purging]);
    expect(storage.namesNow()).toEqual([]);
    expect(await readPersonal('/api/card')).toBeNull();
  });

  it('never reads what a purge asked for earlier is deleting', async () => {
    installCacheStorage({ latency: { delete: 40 } });
    await keepPersonal('/api/card', card);
    const purging = purgePersonalCache();
    expect(await readPersonal('/api/card')).toBeNull();
    await purging;
  });

  it('does nothing, and fails nothing, where the browser has no Cache Storage', async () => {
    await expect(keepPersonal('/api/card', card)).resolves.toBeUndefined();
    await expect(readPersonal('/api/card')).resolves.toBeNull();
    await expect(purgePersonalCache()).resolves.toBeUndefined();
  });
});
