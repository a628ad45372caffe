/**
 * The browser's Cache Storage (`caches`) for unit tests, which jsdom does not have: an in-memory
 * store that behaves as the standard says on the points the portal relies on. Each operation runs
 * "in parallel", as a task of its own that settles after `latency` ms (0 by default, a real
 * macrotask), and nothing orders two operations asked one after the other: a slow `delete` asked
 * first may end after a quick `open` asked later. A deleted cache's name is gone at once from
 * `keys`/`has`/`open`, while a `Cache` object opened before keeps working, unreachable. Responses
 * are stored by URL (resolved against the page, GET only) and read back as new `Response`s.
 */
import { vi } from 'vitest';

type Operation = 'open' | 'has' | 'delete' | 'keys' | 'match' | 'put';

export type CacheStorageOptions = {
  /** How long each kind of operation takes, in ms (a slow disk); 0 when not given. */
  latency?: Partial<Record<Operation, number>>;
};

type StoredResponse = { status: number; statusText: string; headers: [string, string][]; body: ArrayBuffer };

function urlOf(request: RequestInfo | URL): string {
  const raw = request instanceof Request ? request.url : String(request);
  const url = new URL(raw, window.location.href);
  url.hash = '';
  return url.href;
}

function methodOf(request: RequestInfo | URL): string {
  return request instanceof Request ? request.method : 'GET';
}

function revive(stored: StoredResponse): Response {
  return new Response(stored.body.slice(0), {
    status: stored.status,
    statusText: stored.statusText,
    headers: stored.headers,
  });
}

class FakeCache implements Cache {
  readonly entries = new Map<string, StoredResponse>();

  constructor(private readonly settle: <T>(operation: Operation, effect: () => T) => Promise<T>) {}

  match(request: RequestInfo | URL, options?: CacheQueryOptions): Promise<Response | undefined> {
    return this.settle('match', () => {
      if (methodOf(request) !== 'GET' && !options?.ignoreMethod) return undefined;
      const stored = this.entries.get(urlOf(request));
      return stored ? revive(stored) : undefined;
    });
  }

  matchAll(request?: RequestInfo | URL): Promise<readonly Response[]> {
    return this.settle('match', () => {
      const all = request === undefined ? [...this.entries.values()] : [this.entries.get(urlOf(request))];
      return all.filter((stored): stored is StoredResponse => stored !== undefined).map(revive);
    });
  }

  async put(request: RequestInfo | URL, response: Response): Promise<void> {
    if (methodOf(request) !== 'GET') throw new TypeError('Cache.put only stores GET requests');
    if (response.status === 206) throw new TypeError('Cache.put refuses partial responses');
    // The body is read (and so used up) when put is called, as in a browser.
    const body = await response.arrayBuffer();
    const stored = {
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers.entries()],
      body,
    };
    const key = urlOf(request);
    return this.settle('put', () => {
      this.entries.set(key, stored);
    });
  }

  delete(request: RequestInfo | URL): Promise<boolean> {
    return this.settle('delete', () => this.entries.delete(urlOf(request)));
  }

  keys(): Promise<readonly Request[]> {
    return this.settle('keys', () => [...this.entries.keys()].map((url) => new Request(url)));
  }

  add(): Promise<void> {
    return Promise.reject(new TypeError('Cache.add is not part of this stand-in'));
  }

  addAll(): Promise<void> {
    return Promise.reject(new TypeError('Cache.addAll is not part of this stand-in'));
  }
}

export class FakeCacheStorage implements CacheStorage {
  private readonly caches = new Map<string, FakeCache>();

  constructor(private readonly options: CacheStorageOptions = {}) {}

  /** Runs `effect` once the operation's time has passed, on a task of its own. */
  private readonly settle = <T>(operation: Operation, effect: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      setTimeout(() => {
        try {
          resolve(effect());
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      }, this.options.latency?.[operation] ?? 0);
    });

  open(name: string): Promise<Cache> {
    return this.settle('open', () => {
      let cache = this.caches.get(name);
      if (!cache) {
        cache = new FakeCache(this.settle);
        this.caches.set(name, cache);
      }
      return cache;
    });
  }

  has(name: string): Promise<boolean> {
    return this.settle('has', () => this.caches.has(name));
  }

  delete(name: string): Promise<boolean> {
    return this.settle('delete', () => this.caches.delete(name));
  }

  keys(): Promise<string[]> {
    return this.settle('keys', () => [...this.caches.keys()]);
  }

  match(request: RequestInfo | URL, options?: MultiCacheQueryOptions): Promise<Response | undefined> {
    return this.settle('match', () => {
      const names = options?.cacheName ? [options.cacheName] : [...this.caches.keys()];
      for (const name of names) {
        const stored = this.caches.get(name)?.entries.get(urlOf(request));
        if (stored) return revive(stored);
      }
      return undefined;
    });
  }

  /** The cache names held now, read at once (for assertions at a precise moment). */
  namesNow(): string[] {
    return [...this.caches.keys()];
  }

  /** The URLs kept in cache `name` now, or null when there is no such cache. */
  urlsNow(name: string): string[] | null {
    const cache = this.caches.get(name);
    return cache ? [...cache.entries.keys()] : null;
  }
}

/** Gives the page a Cache Storage for this test (setup-tests removes it after each test). */
export function installCacheStorage(options: CacheStorageOptions = {}): FakeCacheStorage {
  const storage = new FakeCacheStorage(options);
  vi.stubGlobal('caches', storage);
  return storage;
}
