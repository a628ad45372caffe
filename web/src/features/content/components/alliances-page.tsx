import { formatDayMonth } from '@/lib/dates';
import { isSafeLink } from '@/lib/site-links';

import { useAlliances, type Alliance } from '../api/get-alliances';
import { CONTENT_COPY as M } from '../messages';

import { ContentImage, ContentStates } from './content-states';

import '@/components/ui/button.css';
import './content-page.css';

export const ALLIANCES_EMPTY = M.alliancesEmpty;
export const ALLIANCES_FAILED = M.alliancesFailed;

/** `isFirst`: as on /promociones, the first image is the largest paint and is fetched at once. */
function AllianceCard({ alliance, isFirst }: { alliance: Alliance; isFirst: boolean }) {
  const titleId = `alianza-${alliance.id}`;
  const until = formatDayMonth(alliance.endsOn);
  return (
    <li className="content-card" aria-labelledby={titleId}>
      <ContentImage
        className="content-card__image"
        src={alliance.imageUrl}
        alt=""
        width={320}
        height={180}
        loading={isFirst ? 'eager' : 'lazy'}
        fetchPriority={isFirst ? 'high' : 'auto'}
      />
      <div className="content-card__body">
        <p className="content-card__partner">{alliance.partner}</p>
        <h2 className="content-card__title" id={titleId}>
          {alliance.title}
        </h2>
        <p className="content-card__text">{alliance.description}</p>
        {alliance.conditions ? (
          <div className="content-card__conditions">
            <h3>{M.conditions}</h3>
            <p>{alliance.conditions}</p>
          </div>
        ) : null}
        {until ? <p className="content-card__meta">Válido hasta el {until}.</p> : null}
        {isSafeLink(alliance.linkUrl) ? (
          <a className="btn btn--secondary btn--small content-card__action" href={alliance.linkUrl}>
            Ver beneficio<span className="visually-hidden">: {alliance.title}</span>
          </a>
        ) : null}
      </div>
    </li>
  );
}

/** /alianzas: partner (bank card) benefits with their conditions. */
export function AlliancesPage() {
  const query = useAlliances();
  return (
    <div className="container page content-page">
      <h1>{M.alliancesTitle}</h1>
      <p className="content-page__lead">{M.alliancesLead}</p>
      <section aria-label={M.alliancesLabel} aria-busy={query.isPending}>
        <ContentStates query={query} loadingLabel="Cargando beneficios…" empty={ALLIANCES_EMPTY} failure={ALLIANCES_FAILED}>
          {(alliances) => (
            <ul className="content-grid">
              {alliances.map((alliance, index) => (
                <AllianceCard key={alliance.id} alliance={alliance} isFirst={index === 0} />
              ))}
            </ul>
          )}
        </ContentStates>
      </section>
    </div>
  );
}
