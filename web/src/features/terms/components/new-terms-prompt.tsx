/**
 * The new version of the terms put to a member after login and on /mi-club: when the version in
 * force is not the one the member decided on (an operator published a new one), a modal shows
 * the new text and asks to accept or reject it; rejecting asks again in the spec's
 * rejected-terms modal. The decision names the version shown, and the gateway records it with
 * that version (or refuses when another came out meanwhile: the text is then read again).
 *
 * Asked once per session and version: a member who closes it ("Decidir más tarde") is not asked
 * again until the next login or a newer version, and a member who decided on this version
 * (rejected included) is not asked at all, so nobody is nagged on every page. Only the version
 * label goes to sessionStorage, nothing personal.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Modal } from '@/components/ui/modal';
import { track } from '@/lib/analytics';
import { ApiError } from '@/lib/api-client';

import { useDecideTerms, type TermsAgreement, type TermsDecided } from '../api/decide-terms';
import { termsQueryKey, useTerms } from '../api/get-terms';
import { TERMS_COPY as M } from '../messages';

import { TermsDocument } from './terms-document';

import './terms-section.css';

const DISMISSED_KEY = 'miclub.terms-prompt-dismissed';

function dismissedVersion(): string | null {
  try {
    return window.sessionStorage.getItem(DISMISSED_KEY);
  } catch {
    return null;
  }
}

function rememberDismissed(version: string): void {
  try {
    window.sessionStorage.setItem(DISMISSED_KEY, version);
  } catch {
    // Storage refused (private mode): the prompt comes back on the next load, no harm done.
  }
}

/** Whether a member whose decision is `agreement` must be asked about `currentVersion`. */
export function needsNewTermsDecision(agreement: TermsAgreement | null | undefined, currentVersion: string): boolean {
  // A member who never decided is not asked here: the Terms section shows that state.
  if (agreement?.agreement !== 'accepted' && agreement?.agreement !== 'rejected') return false;
  return (agreement.version ?? null) !== currentVersion;
}

type NewTermsPromptProps = {
  /** The member's decision as the profile holds it; null while it loads. */
  agreement: TermsAgreement | null;
  onDecided: (decided: TermsDecided) => void;
};

export function NewTermsPrompt({ agreement, onDecided }: NewTermsPromptProps) {
  const terms = useTerms();
  const decide = useDecideTerms();
  const queryClient = useQueryClient();
  const [dismissed, setDismissed] = useState(dismissedVersion);
  const [isRejecting, setRejecting] = useState(false);
  const boxLabelId = useId();

  const current = terms.data;
  if (!current || !needsNewTermsDecision(agreement, current.version) || dismissed === current.version) return null;

  function submit(accept: boolean) {
    if (!current) return;
    decide.mutate(
      { accept, version: current.version },
      {
        onSuccess: (decided) => {
          track(accept ? 'terminos_y_condiciones_aceptado' : 'terminos_y_condiciones_rechazado', {
            version: decided.version,
          });
          setRejecting(false);
          onDecided(decided);
        },
        onError: (error) => {
          // Another version came out while the member read: show it instead.
          if (error instanceof ApiError && error.status === 409) {
            setRejecting(false);
            void queryClient.invalidateQueries({ queryKey: termsQueryKey });
          }
        },
      },
    );
  }

  function later() {
    if (!current) return;
    rememberDismissed(current.version);
    setDismissed(current.version);
  }

  const conflict = decide.error instanceof ApiError && decide.error.status === 409 ? decide.error.body?.message : null;
  const failure = decide.isError ? <Alert>{conflict ?? M.updateFailed}</Alert> : null;

  if (isRejecting) {
    return (
      <Modal title={M.rejectTitle} onClose={() => setRejecting(false)}>
        <p>{M.rejectConsequence}</p>
        <p>{M.rejectReversible}</p>
        {failure}
        <div className="terms-actions">
          <Button variant="secondary" onClick={() => setRejecting(false)} disabled={decide.isPending}>
            {M.back}
          </Button>
          <Button onClick={() => submit(false)} isLoading={decide.isPending}>
            {M.confirmReject}
          </Button>
        </div>
      </Modal>
    );
  }

  return (
    <Modal title={M.newVersionTitle} onClose={later}>
      <p>{M.newVersionIntro}</p>
      {/* A scrollable region must be reachable by keyboard. */}
      {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
      <div className="terms-box" tabIndex={0} role="region" aria-labelledby={boxLabelId}>
        <span id={boxLabelId} className="visually-hidden">
          {M.textLabel}
        </span>
        <TermsDocument terms={current} headingLevel={3} />
      </div>
      {failure}
      <div className="terms-actions">
        <Button onClick={() => submit(true)} isLoading={decide.isPending} disabled={decide.isPending}>
          {M.accept}
        </Button>
        <Button
          variant="secondary"
          onClick={() => {
            decide.reset();
            setRejecting(true);
          }}
          disabled={decide.isPending}
        >
          {M.reject}
        </Button>
        <Button variant="secondary" onClick={later} disabled={decide.isPending}>
          {M.later}
        </Button>
      </div>
    </Modal>
  );
}
