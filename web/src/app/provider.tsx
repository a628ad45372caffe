import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';

import { setUnauthorizedHandler } from '@/lib/api-client';

import { performForcedLogout } from './logout';
import { createQueryClient } from './query-client';

type AppProviderProps = { children: ReactNode; queryClient?: QueryClient };

/**
 * Server state (react-query) and the 401 rule: any 401 outside /api/login logs the member out,
 * and /login then says that the session expired.
 */
export function AppProvider({ children, queryClient }: AppProviderProps) {
  const [client] = useState(() => queryClient ?? createQueryClient());

  useEffect(() => setUnauthorizedHandler(() => void performForcedLogout(client)), [client]);

  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
