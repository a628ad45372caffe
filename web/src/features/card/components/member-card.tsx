import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { formatDateTime, formatPesos } from '@/lib/format';
import { useSession } from '@/lib/session';

import { getCardQueryOptions, getSavedCardQueryOptions, type MemberCard } from '../api/get-card';
import { CARD_COPY as M } from '../messages';
import { formatCardNumber } from '../utils/card-number';
import { readLargeType, registerServiceWorker, useOnline, writeLargeType } from '../utils/offline';

import { Barcode } from './barcode';

import '@/styles/panel.css';
import './member-card.css';

function CardFace({ card, largeType }: { card: MemberCard; largeType: boolean }) {
  const number = formatCardNumber(card.cardNumber);
  const updated = formatDateTime(card.asOf);
  return (
    <div className={`member-card__face${largeType ? ' member-card__face--large' : ''}`} data-testid="member-card">
      <p className="member-card__name">
        {card.name} {card.lastName}
      </p>
      <div className="member-card__code">
        <Barcode value={card.cardNumber} label={M.barcodeLabel(number)} />
      </div>
      <dl className="member-card__facts">
        <div>
          <dt>{M.numberLabel}</dt>
          <dd className="member-card__number" data-testid="card-number">
            {number}
          </dd>
        </div>
        <div>
          <dt>{M.balanceLabel}</dt>
          <dd className="member-card__balance" data-testid="card-balance">
            {formatPesos(card.balance)}
          </dd>
        </div>
      </dl>
      {updated ? (
        <p className="member-card__stamp" data-testid="card-stamp">
          <time dateTime={card.asOf}>{M.updated(updated)}</time>
        </p>
      ) : null}
    </div>
  );
}

/** Why the kept card is shown instead of a fresh one; null while the fresh one may still come. */
function keptCardNotice(online: boolean, failed: boolean): string | null {
  if (!online) return M.offline;
  return failed ? M.stale : null;
}

/**
 * Mi Tarjeta [5] (#21): the member's name, card number and its Code 128 barcode, with the
 * balance, for the till. The last card read is kept on the device (lib/personal-cache.ts) and
 * shown at once, then replaced by the gateway's answer; without a network the kept one stays,
 * stamped with when it was read. Opening the card installs the service worker that lets this page
 * load offline next time.
 */
export function MemberCardSection() {
  const titleId = useId();
  // Waits until the session is checked, so a reload never asks with an expired access cookie.
  const { isConfirmed } = useSession();
  const card = useQuery({ ...getCardQueryOptions(), enabled: isConfirmed });
  const saved = useQuery(getSavedCardQueryOptions());
  const online = useOnline();
  const [largeType, setLargeType] = useState(readLargeType);

  useEffect(registerServiceWorker, []);

  const withoutAccount = card.error instanceof ApiError && card.error.status === 406;
  const shown = card.data ?? (withoutAccount ? null : saved.data);
  const stale = !card.data && shown ? keptCardNotice(online, card.isError) : null;
  const isLoading = !shown && !withoutAccount && !card.isError;

  return (
    <section className="panel member-card" aria-labelledby={titleId} aria-busy={isLoading}>
      <h2 className="panel__title" id={titleId}>
        {M.title}
      </h2>
      {withoutAccount ? (
        <div className="member-card__empty">
          <p role="status">{M.noAccount}</p>
          <Link to="/mi-club">{M.goToAccount}</Link>
        </div>
      ) : null}
      {isLoading ? <Spinner label={M.loading} /> : null}
      {!shown && card.isError && !withoutAccount ? (
        <>
          <Alert>{online ? M.failed : M.offlineWithoutCard}</Alert>
          <Button variant="secondary" onClick={() => void card.refetch()} isLoading={card.isFetching}>
            {M.retry}
          </Button>
        </>
      ) : null}
      {shown ? (
        <>
          <p className="member-card__intro">{M.intro}</p>
          {stale ? <Alert tone="info">{stale}</Alert> : null}
          <CardFace card={shown} largeType={largeType} />
          <p className="member-card__hint">{M.brightness}</p>
          <Button
            variant="secondary"
            aria-pressed={largeType}
            onClick={() => {
              writeLargeType(!largeType);
              setLargeType(!largeType);
            }}
          >
            {M.largeType}
          </Button>
        </>
      ) : null}
    </section>
  );
}
