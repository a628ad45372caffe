import { useEffect, useRef, useState } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { formatDateTime, formatPesos } from '@/lib/format';
import { useSession } from '@/lib/session';

import { useBalance } from '../api/get-balance';
import { ACCOUNT_COPY as M } from '../messages';

import { JoinClub } from './join-club';

import './balance-card.css';

/**
 * "Mi Cuenta": the club balance with its loading, success, without-account and failure states.
 * Joining in place replaces the form the member was using with the new balance: focus moves to
 * the card's title and a status says the account is open, so a keyboard or screen-reader user
 * is not left on a control that no longer exists.
 */
export function BalanceCard() {
  // Waits until the session is checked, so a reload never asks with an expired access cookie.
  const { isConfirmed } = useSession();
  const { status, refetch, isFetching } = useBalance({ enabled: isConfirmed });
  const [justJoined, setJustJoined] = useState(false);
  const titleRef = useRef<HTMLHeadingElement>(null);
  const showJoined = justJoined && status.state === 'success';
  useEffect(() => {
    if (showJoined) titleRef.current?.focus();
  }, [showJoined]);
  return (
    <section className="balance-card" aria-labelledby="balance-title" aria-busy={status.state === 'loading'}>
      <h2 className="balance-card__title" id="balance-title" ref={titleRef} tabIndex={-1}>
        {M.balanceTitle}
      </h2>
      {status.state === 'loading' ? <Spinner label={M.balanceLoading} /> : null}
      {status.state === 'success' ? (
        <>
          {showJoined ? <Alert tone="success">{M.joined}</Alert> : null}
          <p className="balance-card__amount" data-testid="balance-amount">
            {formatPesos(status.balance.balance)}
          </p>
          <p className="balance-card__note">
            {M.balanceNote}
            {status.balance.updatedAt && formatDateTime(status.balance.updatedAt)
              ? M.balanceUpdated(formatDateTime(status.balance.updatedAt) ?? '')
              : null}
          </p>
        </>
      ) : null}
      {status.state === 'without-account' ? (
        <div className="balance-card__empty">
          <p role="status">{M.noAccount}</p>
          <JoinClub onJoined={() => setJustJoined(true)} />
        </div>
      ) : null}
      {status.state === 'failed' ? (
        <>
          <Alert>{M.balanceFailed}</Alert>
          <Button variant="secondary" onClick={() => void refetch()} isLoading={isFetching}>
            {M.retry}
          </Button>
        </>
      ) : null}
    </section>
  );
}
