import { useId, useState } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Modal } from '@/components/ui/modal';
import { Spinner } from '@/components/ui/spinner';
import { track } from '@/lib/analytics';
import { formatDate } from '@/lib/format';

import { useDecideTerms, type TermsAgreement, type TermsDecided } from '../api/decide-terms';
import { useTerms } from '../api/get-terms';
import { TERMS_COPY as M } from '../messages';
import { termsState } from '../utils/terms-state';

import { TermsDocument } from './terms-document';
import { TermsLoadFailure } from './terms-load-failure';

import '@/styles/panel.css';
import './terms-section.css';

/** Spec section 8, "Terms update failure". */
export const TERMS_UPDATE_FAILED = M.updateFailed;

type TermsSectionProps = {
  /** The member's decision as the profile holds it. */
  agreement: TermsAgreement | null;
  isAgreementLoading: boolean;
  /** After an update: the app records it in the profile and takes the menu to Mi Cuenta. */
  onDecided: (decided: TermsDecided) => void;
};

function DecisionStatus({ agreement }: { agreement: TermsAgreement | null }) {
  const state = termsState(agreement);
  const date = state.terms_and_conditions_last_update ? formatDate(state.terms_and_conditions_last_update) : null;
  const on = date ? M.on(date) : '';
  let text: string = M.undecided;
  if (state.terms_and_conditions_accepted) text = M.accepted(on);
  else if (state.terms_and_conditions_rejected) {
    text = M.rejected(on);
  }
  return (
    <p
      className={`terms-status${state.terms_and_conditions_rejected ? ' terms-status--rejected' : ''}`}
      data-testid="terms-decision"
    >
      {text}
    </p>
  );
}

/** "Términos y Condiciones" [3]: the terms in force and the member's decision on them. */
export function TermsSection({ agreement, isAgreementLoading, onDecided }: TermsSectionProps) {
  const terms = useTerms();
  const decide = useDecideTerms();
  const [isRejectModalOpen, setRejectModalOpen] = useState(false);
  const titleId = useId();

  function submit(accept: boolean) {
    decide.mutate({ accept, version: terms.data?.version }, {
      onSuccess: (decided) => {
        track(accept ? 'terminos_y_condiciones_aceptado' : 'terminos_y_condiciones_rechazado', {
          version: decided.version,
        });
        setRejectModalOpen(false);
        onDecided(decided);
      },
    });
  }

  const failure = decide.isError ? <Alert>{TERMS_UPDATE_FAILED}</Alert> : null;

  return (
    <section className="panel" aria-labelledby={titleId} aria-busy={terms.isPending}>
      <h2 className="panel__title" id={titleId}>
        {M.sectionTitle}
      </h2>
      {isAgreementLoading ? <Spinner size="small" label={M.decisionLoading} /> : <DecisionStatus agreement={agreement} />}
      {terms.isPending ? <Spinner label={M.loading} /> : null}
      {terms.isError && !terms.data ? (
        <TermsLoadFailure onRetry={() => void terms.refetch()} isRetrying={terms.isFetching} />
      ) : null}
      {terms.data ? (
        <>
          {/* A scrollable region must be reachable by keyboard. */}
          {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
          <div className="terms-box" tabIndex={0} role="region" aria-label={M.textLabel}>
            <TermsDocument terms={terms.data} headingLevel={3} />
          </div>
          {!isRejectModalOpen ? failure : null}
          <div className="terms-actions">
            <Button
              onClick={() => submit(true)}
              isLoading={decide.isPending && decide.variables?.accept === true}
              disabled={decide.isPending}
            >
              {M.accept}
            </Button>
            <Button
              variant="secondary"
              onClick={() => {
                decide.reset();
                setRejectModalOpen(true);
              }}
              disabled={decide.isPending}
            >
              {M.reject}
            </Button>
          </div>
        </>
      ) : null}
      {isRejectModalOpen ? (
        <Modal title={M.rejectTitle} onClose={() => setRejectModalOpen(false)}>
          <p>{M.rejectConsequence}</p>
          <p>{M.rejectReversible}</p>
          {failure}
          <div className="terms-actions">
            {/* The safe choice first: it is where focus lands when the dialog opens. */}
            <Button variant="secondary" onClick={() => setRejectModalOpen(false)} disabled={decide.isPending}>
              {M.back}
            </Button>
            <Button onClick={() => submit(false)} isLoading={decide.isPending}>
              {M.confirmReject}
            </Button>
          </div>
        </Modal>
      ) : null}
    </section>
  );
}
