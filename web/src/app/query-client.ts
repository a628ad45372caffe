import { QueryClient } from '@tanstack/react-query';

import { ApiError } from '@/lib/api-client';

/** 4xx answers are final (401 logs out, 406 is a state): only no answer or 5xx is retried. */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status < 500) return false;
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
