import { afterEach, describe, expect, it, vi } from 'vitest';

import { ApiError, NetworkError } from '@/lib/api-client';

import { shouldRetry } from './query-client';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('shouldRetry', () => {
  it('retries no answer and 5xx twice, and never a 4xx', () => {
    const noAnswer = new NetworkError('/api/balance', new TypeError('fetch failed'));
    expect([0, 1, 2].map((count) => shouldRetry(count, noAnswer))).toEqual([true, true, false]);
    expect(shouldRetry(0, new ApiError(503, '/api/balance', null))).toBe(true);
    for (const status of [401, 404, 406, 422]) expect(shouldRetry(0, new ApiError(status, '/api/balance', null))).toBe(false);
  });

  it('does not retry no answer while the browser says it is offline, so the page shows what it kept at once', () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    expect(shouldRetry(0, new NetworkError('/api/card', new TypeError('fetch failed')))).toBe(false);
    // A 5xx came from a network that works.
    expect(shouldRetry(0, new ApiError(503, '/api/card', null))).toBe(true);
  });
});
