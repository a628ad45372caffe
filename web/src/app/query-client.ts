import { QueryClient } from '@tanstack/react-query';

import { ApiError, NetworkError } from '@/lib/api-client';

/**
 * 4xx answers are final (401 logs out, 406 is a state): only no answer or 5xx is retried, and no
 * answer is not retried while the browser knows it is offline: the page shows what it has at once
 * (the member card kept for the till, #21) and React Query asks again when the network is back.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status < 500) return false;
  if (error instanceof NetworkError && typeof navigator !== 'undefined' && !navigator.onLine) return false;
  return failureCount < 2;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { retry: shouldRetry, staleTime: 30_000 },
      mutations: { retry: false },
    },
  });
}
