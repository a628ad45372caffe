import { useId, useState } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { useSession } from '@/lib/session';

import { useCloseOtherSessions } from '../api/close-other-sessions';
import { useCloseSession } from '../api/close-session';
import { useSecurityEvents, type SecurityEvent } from '../api/get-security-events';
import { useSessions, type OpenSession } from '../api/get-sessions';
import { SECURITY_COPY as M } from '../messages';
import { deviceLabel, eventLabel, isFailedAttempt } from '../utils/labels';

import '@/styles/badge.css';
import '@/styles/panel.css';
import './account-activity.css';

/** The member-facing text of a failed close: the gateway's Spanish message when it sent one. */
function closeFailure(error: unknown): string {
  return error instanceof ApiError && error.body?.message ? error.body.message : M.closeFailed;
}

function When({ iso }: { iso: string }) {
  return <time dateTime={iso}>{formatDateTime(iso) ?? iso}</time>;
}

function SessionItem({
  session,
  onClose,
  isClosing,
}: {
  session: OpenSession;
  onClose: (id: string) => void;
  isClosing: boolean;
}) {
  const device = deviceLabel(session.browser, session.os);
  return (
    <li className="activity-session" data-testid="open-session">
      <div className="activity-session__main">
        <p className="activity-session__device">
          {device} {session.current ? <span className="badge badge--ok">{M.thisSession}</span> : null}
        </p>
        <p className="activity-session__meta">
          {M.startedAt} <When iso={session.startedAt} />
        </p>
        <p className="activity-session__meta">
          {M.lastSeenAt} <When iso={session.lastSeenAt} />
        </p>
      </div>
      {session.current ? null : (
        <Button
          variant="secondary"
          onClick={() => onClose(session.id)}
          isLoading={isClosing}
          aria-label={M.closeSessionLabel(device, formatDateTime(session.startedAt) ?? session.startedAt)}
        >
          {M.closeSession}
        </Button>
      )}
    </li>
  );
}

function OpenSessions({ enabled }: { enabled: boolean }) {
  const titleId = useId();
  const sessions = useSessions({ enabled });
  const closeOne = useCloseSession();
  const closeOthers = useCloseOtherSessions();
  const [closingId, setClosingId] = useState<string | null>(null);
  const [outcome, setOutcome] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);

  function close(id: string) {
    setClosingId(id);
    setOutcome(null);
    closeOne.mutate(id, {
      onSuccess: () => setOutcome({ tone: 'success', text: M.sessionClosed }),
      onError: (error) => setOutcome({ tone: 'error', text: closeFailure(error) }),
      onSettled: () => setClosingId(null),
    });
  }

  function closeAllOthers() {
    setOutcome(null);
    closeOthers.mutate(undefined, {
      onSuccess: (closed) => setOutcome({ tone: 'success', text: M.othersClosed(closed.closed) }),
      onError: (error) => setOutcome({ tone: 'error', text: closeFailure(error) }),
    });
  }

  const list = sessions.data?.sessions;
  const others = list?.filter((session) => !session.current).length ?? 0;
  return (
    <section className="activity__block" aria-labelledby={titleId} aria-busy={sessions.isPending}>
      <h3 className="activity__subtitle" id={titleId}>
        {M.sessionsTitle}
      </h3>
      {outcome ? <Alert tone={outcome.tone}>{outcome.text}</Alert> : null}
      {list ? (
        <>
          <ul className="activity__list" aria-labelledby={titleId}>
            {list.map((session) => (
              <SessionItem
                key={session.id}
                session={session}
                onClose={close}
                isClosing={closingId === session.id}
              />
            ))}
          </ul>
          {others > 0 ? (
            <Button variant="secondary" onClick={closeAllOthers} isLoading={closeOthers.isPending}>
              {M.closeOthers}
            </Button>
          ) : (
            <p className="activity__note">{M.noOthers}</p>
          )}
        </>
      ) : sessions.isError ? (
        <>
          <Alert>{M.sessionsFailed}</Alert>
          <Button variant="secondary" onClick={() => void sessions.refetch()} isLoading={sessions.isFetching}>
            {M.retry}
          </Button>
        </>
      ) : (
        <Spinner label={M.sessionsLoading} />
      )}
    </section>
  );
}

function EventItem({ event }: { event: SecurityEvent }) {
  const failed = isFailedAttempt(event.kind);
  const device = event.browser || event.os ? deviceLabel(event.browser, event.os) : null;
  return (
    <li className={`activity-event${failed ? ' activity-event--failed' : ''}`} data-testid="security-event">
      <p className="activity-event__label">{eventLabel(event.kind)}</p>
      <p className="activity-event__meta">
        <When iso={event.occurredAt} />
        {device ? <span> · {device}</span> : null}
      </p>
    </li>
  );
}

function SecurityEvents({ enabled }: { enabled: boolean }) {
  const titleId = useId();
  const events = useSecurityEvents({ enabled });
  const list = events.data?.events;
  return (
    <section className="activity__block" aria-labelledby={titleId} aria-busy={events.isPending}>
      <h3 className="activity__subtitle" id={titleId}>
        {M.eventsTitle}
      </h3>
      <p className="activity__note">{M.eventsPeriod}</p>
      {list ? (
        list.length > 0 ? (
          <ul className="activity__list" aria-labelledby={titleId}>
            {list.map((event, index) => (
              // Events have no id of their own; the list is read whole and never reordered.
              <EventItem key={`${event.occurredAt}-${event.kind}-${index}`} event={event} />
            ))}
          </ul>
        ) : (
          <p className="panel__empty">{M.eventsEmpty}</p>
        )
      ) : events.isError ? (
        <>
          <Alert>{M.eventsFailed}</Alert>
          <Button variant="secondary" onClick={() => void events.refetch()} isLoading={events.isFetching}>
            {M.retry}
          </Button>
        </>
      ) : (
        <Spinner label={M.eventsLoading} />
      )}
    </section>
  );
}

/**
 * "Actividad de la cuenta", under Mis Datos [1]: the member's open sessions (the current one
 * marked "Esta sesión"), each other one closable, all of them at once, and the security events of
 * the last 90 days. A closed session is refused by the gateway from its next request on.
 */
export function AccountActivity() {
  // Waits until the session is checked, like the rest of Mi Cuenta.
  const { isConfirmed } = useSession();
  const titleId = useId();
  return (
    <section className="panel activity" aria-labelledby={titleId}>
      <p className="activity__back">
        <Link to="/mi-club/mis-datos">{M.back}</Link>
      </p>
      <h2 className="panel__title" id={titleId}>
        {M.title}
      </h2>
      <p>{M.intro}</p>
      <OpenSessions enabled={isConfirmed} />
      <SecurityEvents enabled={isConfirmed} />
    </section>
  );
}
