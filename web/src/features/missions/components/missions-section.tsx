import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { formatDayMonth } from '@/lib/dates';
import { formatPesos } from '@/lib/format';
import { useSession } from '@/lib/session';

import { useMissions, type Mission } from '../api/get-missions';
import { MISSIONS_COPY as M } from '../messages';
import { missionIcon } from '../utils/mission-icons';

import '@/styles/badge.css';
import './missions-section.css';

export const MISSIONS_EMPTY = M.empty;
export const MISSIONS_CONFLICT = M.conflict;
export const MISSIONS_FAILED = M.failed;

/** "$12.000 de $20.000" or "2 de 3 compras". */
export function progressText(mission: Pick<Mission, 'goalKind' | 'goal' | 'progress'>): string {
  const progress = Math.min(mission.progress, mission.goal);
  if (mission.goalKind === 'amount') return M.amounts(formatPesos(progress), formatPesos(mission.goal));
  return M.purchases(progress, mission.goal);
}

function endText(mission: Mission): string | null {
  const day = formatDayMonth(mission.endsOn);
  if (!day) return null;
  return mission.status === 'expired' ? M.ended(day) : M.ends(day);
}

/**
 * The category's pictogram, announced once by its category's name ("Carnes de vacuno"): the
 * svg is the image, nothing else in the card repeats the name.
 */
function CategoryIcon({ categoryId }: { categoryId: number }) {
  const { Icon, name, key } = missionIcon(categoryId);
  return (
    <span className="mission-card__icon">
      <Icon role="img" aria-label={name} data-icon={key} size={32} stroke={1.75} focusable="false" />
    </span>
  );
}

function MissionCard({ mission }: { mission: Mission }) {
  const titleId = `mission-${mission.missionId}-title`;
  const progress = Math.max(0, Math.min(mission.progress, mission.goal));
  const percent = mission.goal > 0 ? Math.round((progress / mission.goal) * 100) : 0;
  const text = progressText(mission);
  const end = endText(mission);
  return (
    <li className={`mission-card mission-card--${mission.status}`} aria-labelledby={titleId}>
      <CategoryIcon categoryId={mission.categoryId} />
      <div className="mission-card__body">
        <div className="mission-card__header">
          <h3 className="mission-card__title" id={titleId}>
            {mission.title}
          </h3>
          {mission.status === 'completed' ? (
            <span className="badge badge--success">{M.completed}</span>
          ) : null}
          {mission.status === 'expired' ? <span className="badge badge--muted">{M.expired}</span> : null}
        </div>
        <p className="mission-card__description">{mission.description}</p>
        <div
          className="progress"
          role="progressbar"
          aria-labelledby={titleId}
          aria-valuemin={0}
          aria-valuemax={mission.goal}
          aria-valuenow={progress}
          aria-valuetext={text}
        >
          <span className="progress__bar" style={{ width: `${percent}%` }} />
        </div>
        <p className="mission-card__progress" data-testid="mission-progress">
          {text}
        </p>
        <p className="mission-card__meta">
          <span>
            Premio: <strong>{formatPesos(mission.reward)}</strong>
          </span>
          {end ? <span>{end}</span> : null}
        </p>
      </div>
    </li>
  );
}

/** "Misiones" [4]: each mission with its icon, progress, reward and end date, in every state. */
export function MissionsSection() {
  // Waits for the session check, like the balance (NOT_START until then).
  const { isConfirmed } = useSession();
  const { status, restart } = useMissions({ enabled: isConfirmed });
  const busy = status.state === 'loading' || status.state === 'restart' || status.state === 'not-start';
  return (
    <section className="missions" aria-labelledby="missions-title" aria-busy={busy}>
      <h2 className="missions__title" id="missions-title">
        {M.title}
      </h2>
      {busy ? <Spinner label={M.loading} /> : null}
      {status.state === 'success' && status.missions.length === 0 ? (
        <p className="missions__empty" role="status">
          {MISSIONS_EMPTY}
        </p>
      ) : null}
      {status.state === 'success' && status.missions.length > 0 ? (
        <ul className="missions__list">
          {status.missions.map((mission) => (
            <MissionCard key={mission.missionId} mission={mission} />
          ))}
        </ul>
      ) : null}
      {status.state === 'conflict' || status.state === 'failed' ? (
        <>
          <Alert tone={status.state === 'conflict' ? 'info' : 'error'}>
            {status.state === 'conflict' ? MISSIONS_CONFLICT : MISSIONS_FAILED}
          </Alert>
          <Button variant="secondary" onClick={restart}>
            {M.retry}
          </Button>
        </>
      ) : null}
    </section>
  );
}
