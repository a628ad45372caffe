import { Spinner } from '@/components/ui/spinner';

import { useTerms } from '../api/get-terms';
import { TERMS_COPY as M } from '../messages';

import { TermsDocument } from './terms-document';
import { TermsLoadFailure } from './terms-load-failure';

import '@/styles/panel.css';

/** /terminos-y-condiciones: the terms in force for anyone, logged in or not. */
export function TermsPage() {
  const terms = useTerms();
  return (
    <div className="container page">
      <section className="panel" aria-busy={terms.isPending}>
        <h1 className="panel__title">{M.pageTitle}</h1>
        {terms.data ? <TermsDocument terms={terms.data} /> : null}
        {terms.isError && !terms.data ? (
          <TermsLoadFailure onRetry={() => void terms.refetch()} isRetrying={terms.isFetching} />
        ) : null}
        {terms.isPending ? <Spinner label={M.loading} /> : null}
      </section>
    </div>
  );
}
