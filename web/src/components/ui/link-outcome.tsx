import type { ReactNode } from 'react';

import { ApiError } from '@/lib/api-client';
import { toDisplayError } from '@/lib/errors';

import { Alert } from './alert';
import { Button } from './button';
import { Spinner } from './spinner';

import '@/styles/panel.css';

/** What the page needs of the link's query (react-query's result fits). */
type LinkQuery<T> = {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  isLoading: boolean;
  isSuccess: boolean;
  isError: boolean;
  isFetching: boolean;
  refetch: () => unknown;
};

type LinkOutcomeProps<T> = {
  title: string;
  /** Null for a link without a token: `invalidLinkMessage` is shown and nothing is asked. */
  token: string | null;
  query: LinkQuery<T>;
  invalidLinkMessage: string;
  loadingLabel: string;
  /** When there was no answer or no message of the gateway's. */
  failedMessage: string;
  success: (data: T) => ReactNode;
  /** Under a final failure (a 4xx, or no token): where the member goes next. */
  onward: ReactNode;
};

/**
 * The page a mailed link opens (/confirmar-correo, /restaurar-correo): one request on arrival, a
 * loading state while it is on its way, then the outcome. A 4xx is the link's final answer, shown
 * with the gateway's message; no answer or a 5xx can be tried again.
 */
export function LinkOutcome<T>({
  title,
  token,
  query,
  invalidLinkMessage,
  loadingLabel,
  failedMessage,
  success,
  onward,
}: LinkOutcomeProps<T>) {
  const canRetry = query.isError && !(query.error instanceof ApiError && query.error.status < 500);
  return (
    <div className="container page">
      <section className="panel panel--narrow" aria-busy={query.isLoading}>
        <h1 className="panel__title">{title}</h1>
        {!token ? (
          <>
            <Alert>{invalidLinkMessage}</Alert>
            {onward}
          </>
        ) : null}
        {token && query.isPending ? <Spinner label={loadingLabel} /> : null}
        {query.isSuccess && query.data !== undefined ? success(query.data) : null}
        {query.isError ? (
          <>
            <Alert>{toDisplayError(query.error, failedMessage).message}</Alert>
            {canRetry ? (
              <Button variant="secondary" onClick={() => void query.refetch()} isLoading={query.isFetching}>
                Reintentar
              </Button>
            ) : (
              onward
            )}
          </>
        ) : null}
      </section>
    </div>
  );
}
