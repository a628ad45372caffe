import { useId } from 'react';
import { Link, useLocation } from 'react-router-dom';

import { AccrualBreakdown } from '@/components/accrual-breakdown';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { WEEK_DAY_NAMES } from '@/lib/dates';
import { formatDate, formatPesos } from '@/lib/format';
import { useSession } from '@/lib/session';

import { useMovementDetail, type MovementDetail as Detail, type PurchaseDetail } from '../api/get-movement-detail';
import { MOVEMENTS_COPY as M } from '../messages';
import { kindLabel, statusLabel } from '../utils/labels';

import '@/styles/panel.css';
import './movements-section.css';
import './movement-detail.css';

export const MOVEMENT_DETAIL_FAILED = M.detailFailed;
export const MOVEMENT_NOT_FOUND = M.detailNotFound;

const PAYMENT_LABELS: Record<string, string> = {
  partner_card: M.paymentPartnerCard,
  other_card: M.paymentOtherCard,
  cash: M.paymentCash,
};

function StatusLine({ detail }: { detail: Detail }) {
  if (detail.status === 'pending') {
    const date = detail.confirmsAt ? formatDate(detail.confirmsAt) : null;
    return <p data-testid="movement-status-line">{date ? M.pendingUntil(date) : statusLabel('pending')}</p>;
  }
  const date = detail.confirmedAt ? formatDate(detail.confirmedAt) : null;
  return <p data-testid="movement-status-line">{date ? M.confirmedOn(date) : statusLabel(detail.status)}</p>;
}

function Purchase({ purchase }: { purchase: PurchaseDetail }) {
  const day = WEEK_DAY_NAMES[purchase.weekDay - 1];
  return (
    <section className="movement-detail__purchase" aria-labelledby="movement-purchase-title">
      <h3 id="movement-purchase-title">{M.purchaseTitle}</h3>
      <dl className="movement-detail__facts">
        <div>
          <dt>{M.store}</dt>
          <dd>{purchase.storeName}</dd>
        </div>
        <div>
          <dt>{M.purchaseDay}</dt>
          <dd>
            {day ? `${day} ` : ''}
            {formatDate(purchase.purchasedAt) ?? ''}
          </dd>
        </div>
        <div>
          <dt>{M.payment}</dt>
          <dd>{PAYMENT_LABELS[purchase.paymentMethod] ?? purchase.paymentMethod}</dd>
        </div>
        <div>
          <dt>{M.purchaseTotal}</dt>
          <dd>{formatPesos(purchase.total)}</dd>
        </div>
      </dl>
      {purchase.lines ? (
        <>
          <AccrualBreakdown lines={purchase.lines} caption={M.breakdownCaption} earnedLabel={M.earned} showTotal />
          <p className="movement-detail__note">{M.rulesVersion(purchase.rulesVersion)}</p>
        </>
      ) : (
        <p className="movement-detail__note" role="note">
          {M.noBreakdown}
        </p>
      )}
    </section>
  );
}

function Explained({ detail }: { detail: Detail }) {
  const negative = detail.amount < 0;
  return (
    <>
      <dl className="movement-detail__facts">
        <div>
          <dt>{M.amountLabel}</dt>
          <dd className={`movement__amount${negative ? ' movement__amount--negative' : ''}`} data-testid="movement-amount">
            {formatPesos(detail.amount)}
          </dd>
        </div>
        <div>
          <dt>{M.dateLabel}</dt>
          <dd>
            <time dateTime={detail.occurredAt}>{formatDate(detail.occurredAt) ?? ''}</time>
          </dd>
        </div>
        <div>
          <dt>{M.statusLabel}</dt>
          <dd>
            <span className="tag">{kindLabel(detail.kind)}</span>{' '}
            <span className={`tag tag--${detail.status === 'pending' ? 'pending' : 'confirmed'}`}>
              {statusLabel(detail.status)}
            </span>
          </dd>
        </div>
      </dl>
      <StatusLine detail={detail} />
      {detail.purchase ? (
        <Purchase purchase={detail.purchase} />
      ) : (
        <p className="movement-detail__note">{M.noPurchase}</p>
      )}
    </>
  );
}

/** Where "Volver" goes: the list as the member left it (its month and page), else the list. */
function useBackTarget(): string {
  const { state } = useLocation();
  const from = (state as { movementsSearch?: unknown } | null)?.movementsSearch;
  return typeof from === 'string' && from.startsWith('?') ? `..${from}` : '..';
}

/**
 * One movement explained (`/mi-club/movimientos/{id}`, #21): amount, date, pending until when or
 * confirmed when, and for a purchase its lines by category with the rule and rate of each, as
 * computed when the purchase was posted; the same table as the simulator's.
 */
export function MovementDetailSection({ movementId }: { movementId: string }) {
  const { isConfirmed } = useSession();
  const titleId = useId();
  const { status, refetch, isFetching } = useMovementDetail(movementId, { enabled: isConfirmed });
  const back = useBackTarget();
  const description = status.state === 'success' ? status.detail.description : null;

  return (
    <section className="panel movement-detail" aria-labelledby={titleId} aria-busy={status.state === 'loading'}>
      <p className="movement-detail__back">
        <Link to={back} relative="path">
          {M.back}
        </Link>
      </p>
      <h2 className="panel__title" id={titleId} tabIndex={-1}>
        {description ?? M.detailTitle}
      </h2>
      {status.state === 'loading' ? <Spinner label={M.detailLoading} /> : null}
      {status.state === 'not-found' ? (
        <p className="panel__empty" role="status">
          {MOVEMENT_NOT_FOUND}
        </p>
      ) : null}
      {status.state === 'failed' ? (
        <>
          <Alert>{MOVEMENT_DETAIL_FAILED}</Alert>
          <Button variant="secondary" onClick={() => void refetch()} isLoading={isFetching}>
            {M.retry}
          </Button>
        </>
      ) : null}
      {status.state === 'success' ? <Explained detail={status.detail} /> : null}
    </section>
  );
}
