import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { SelectField } from '@/components/ui/select-field';
import { Spinner } from '@/components/ui/spinner';
import { track } from '@/lib/analytics';
import { chileToday, MONTH_NAMES, type YearMonth } from '@/lib/dates';
import { formatDate, formatPesos } from '@/lib/format';
import { useSession } from '@/lib/session';

import { useMovements, type Movement } from '../api/get-movements';
import { MOVEMENTS_COPY as M } from '../messages';
import { kindLabel, statusLabel } from '../utils/labels';
import { monthChoices, nearestChoice } from '../utils/month-choices';
import { movementsSearchParams, parseMovementsQuery, type MovementsQuery } from '../utils/movements-query';

import '@/styles/panel.css';
import './movements-section.css';

export const NO_MOVEMENTS = M.empty;
export const MOVEMENTS_FAILED = M.failed;

function monthName(month: number): string {
  return MONTH_NAMES[month - 1] ?? String(month);
}

function MovementItem({ movement }: { movement: Movement }) {
  const negative = movement.amount < 0;
  const { search } = useLocation();
  const date = formatDate(movement.occurredAt) ?? '';
  return (
    <li className="movement" data-testid="movement">
      <div className="movement__main">
        <p className="movement__description">
          {movement.kind === 'accrual' ? (
            // Each accrual opens its explanation (#21) at its own address; Back returns to this page.
            <Link
              to={encodeURIComponent(movement.id)}
              relative="path"
              state={{ movementsSearch: search }}
              aria-label={M.explainLabel(movement.description, date)}
            >
              {movement.description}
            </Link>
          ) : (
            movement.description
          )}
        </p>
        <p className="movement__meta">
          <time dateTime={movement.occurredAt}>{date}</time>
          <span className="tag">{kindLabel(movement.kind)}</span>
          <span className={`tag tag--${movement.status === 'pending' ? 'pending' : 'confirmed'}`}>
            {statusLabel(movement.status)}
          </span>
        </p>
      </div>
      <p className={`movement__amount${negative ? ' movement__amount--negative' : ''}`}>{formatPesos(movement.amount)}</p>
    </li>
  );
}

/**
 * "Mis Movimientos" [2]: the member's movements month by month, 10 to a page. The month and the
 * page shown are the address's (`?mes=2026-11&pagina=2`): each choice is a new history entry.
 */
export function MovementsSection() {
  const { isConfirmed } = useSession();
  const [current] = useState<YearMonth>(() => {
    const today = chileToday();
    return { year: today.year, month: today.month };
  });
  const choices = useMemo(() => monthChoices(current), [current]);
  const [searchParams, setSearchParams] = useSearchParams();
  const { month: selected, page } = parseMovementsQuery(searchParams, current, choices);
  function show(next: MovementsQuery, options: { replace?: boolean } = {}) {
    setSearchParams(movementsSearchParams(next, current), options);
  }
  /** Set by a page change: focus goes to the results once the new page is shown. */
  const focusResults = useRef(false);
  const resultsTitleRef = useRef<HTMLHeadingElement>(null);
  const titleId = useId();
  const { status, isPlaceholder, refetch, isFetching } = useMovements(
    { year: selected.year, month: selected.month, page },
    { enabled: isConfirmed },
  );

  const shownPage = status.state === 'success' && !isPlaceholder ? status.page.page : null;
  const lastPage = status.state === 'success' && !isPlaceholder ? Math.max(status.page.totalPages, 1) : null;
  useEffect(() => {
    // An address past the month's last page (an old link, a hand-edited one) shows the last page.
    if (lastPage !== null && page > lastPage) {
      setSearchParams(movementsSearchParams({ month: selected, page: lastPage }, current), { replace: true });
    }
  }, [lastPage, page, selected, current, setSearchParams]);
  useEffect(() => {
    // After a page change, the reader continues at the top of the new page.
    if (focusResults.current && shownPage !== null) {
      focusResults.current = false;
      resultsTitleRef.current?.focus();
    }
  }, [shownPage]);

  function choose(next: YearMonth) {
    const month = nearestChoice(next, choices);
    show({ month, page: 1 });
    track('historial_cambio_fecha', { mes: month.month, anio: month.year });
  }

  function goTo(nextPage: number) {
    focusResults.current = true;
    show({ month: selected, page: nextPage });
  }

  const periodLabel = `${monthName(selected.month)} ${selected.year}`;

  return (
    <section className="panel" aria-labelledby={titleId} aria-busy={status.state === 'loading' || isPlaceholder}>
      <h2 className="panel__title" id={titleId}>
        {M.title}
      </h2>
      {status.state === 'without-account' ? (
        <div className="panel__empty" role="status">
          <p>{M.noAccount}</p>
          <p>
            {/* Joining happens in place, in Mi Cuenta (features/account/components/join-club.tsx). */}
            {M.activateAccount} <Link to="/mi-club">{M.joinMiClub}</Link>
          </p>
        </div>
      ) : (
        <>
          <div className="movements__filters">
            <SelectField
              label={M.month}
              name="month"
              value={String(selected.month)}
              onChange={(event) => choose({ year: selected.year, month: Number(event.target.value) })}
            >
              {choices.monthsOf(selected.year).map((month) => (
                <option key={month} value={String(month)}>
                  {monthName(month)}
                </option>
              ))}
            </SelectField>
            <SelectField
              label={M.year}
              name="year"
              value={String(selected.year)}
              onChange={(event) => choose({ year: Number(event.target.value), month: selected.month })}
            >
              {choices.years.map((year) => (
                <option key={year} value={String(year)}>
                  {year}
                </option>
              ))}
            </SelectField>
          </div>
          <h3 className="movements__period" ref={resultsTitleRef} tabIndex={-1}>
            {periodLabel}
          </h3>
          {status.state === 'loading' ? <Spinner label={M.loading} /> : null}
          {status.state === 'failed' ? (
            <>
              <Alert>{MOVEMENTS_FAILED}</Alert>
              <Button variant="secondary" onClick={() => void refetch()} isLoading={isFetching}>
                {M.retry}
              </Button>
            </>
          ) : null}
          {status.state === 'success' && status.page.items.length === 0 ? (
            <p className="panel__empty" role="status">
              {NO_MOVEMENTS}
            </p>
          ) : null}
          {status.state === 'success' && status.page.items.length > 0 ? (
            <>
              <ul className="movements__list" aria-label={M.listLabel(periodLabel)}>
                {status.page.items.map((movement) => (
                  <MovementItem key={movement.id} movement={movement} />
                ))}
              </ul>
              {status.page.totalPages > 1 ? (
                <nav className="pagination" aria-label={M.pagesLabel}>
                  <Button
                    variant="secondary"
                    onClick={() => goTo(status.page.page - 1)}
                    disabled={status.page.page <= 1 || isPlaceholder}
                  >
                    {M.previous}
                  </Button>
                  <p className="pagination__status" aria-live="polite">
                    Página {status.page.page} de {status.page.totalPages}
                  </p>
                  <Button
                    variant="secondary"
                    onClick={() => goTo(status.page.page + 1)}
                    disabled={status.page.page >= status.page.totalPages || isPlaceholder}
                  >
                    {M.next}
                  </Button>
                </nav>
              ) : null}
            </>
          ) : null}
        </>
      )}
    </section>
  );
}
