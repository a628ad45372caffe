import { useState, type ReactNode } from 'react';

import { SmartLink } from '@/components/ui/smart-link';
import { track } from '@/lib/analytics';
import { formatDayMonth } from '@/lib/dates';
import { isSafeLink } from '@/lib/site-links';

import { usePromotions, type Promotion } from '../api/get-promotions';
import { CONTENT_COPY as M } from '../messages';

import { ContentImage, ContentStates } from './content-states';

import '@/components/ui/button.css';
import '@/styles/badge.css';
import './content-page.css';

export const PROMOTIONS_EMPTY = M.promotionsEmpty;
export const PROMOTIONS_FAILED = M.promotionsFailed;

function validity(promotion: Promotion): string | null {
  const from = formatDayMonth(promotion.startsOn);
  const to = formatDayMonth(promotion.endsOn);
  if (from && to) return M.validBetween(from, to);
  if (to) return M.validUntil(to);
  return null;
}

/**
 * `isFirst`: the first card's image is the page's largest paint on a phone, so it is fetched at
 * once and first rather than lazily once the layout is known.
 */
function PromotionCard({ promotion, isFirst }: { promotion: Promotion; isFirst: boolean }) {
  const [isOpen, setIsOpen] = useState(false);
  const titleId = `promocion-${promotion.id}`;
  const detailsId = `promocion-${promotion.id}-detalle`;
  const fields = { promocion_id: promotion.id, promocion_titulo: promotion.title };
  const text = validity(promotion);
  return (
    <li className="content-card" aria-labelledby={titleId}>
      <ContentImage
        className="content-card__image"
        src={promotion.imageUrl}
        alt=""
        width={320}
        height={180}
        loading={isFirst ? 'eager' : 'lazy'}
        fetchPriority={isFirst ? 'high' : 'auto'}
      />
      <div className="content-card__body">
        {promotion.badge ? <span className="badge badge--accent">{promotion.badge}</span> : null}
        <h2 className="content-card__title" id={titleId}>
          {promotion.title}
        </h2>
        <p className="content-card__text">{promotion.description}</p>
        <button
          type="button"
          className="btn btn--link content-card__toggle"
          aria-expanded={isOpen}
          aria-controls={detailsId}
          onClick={() => {
            if (!isOpen) track('promocion_seleccion', fields);
            setIsOpen(!isOpen);
          }}
        >
          {isOpen ? M.hideDetail : M.showDetail}
          <span className="visually-hidden"> de {promotion.title}</span>
        </button>
        <div id={detailsId} className="content-card__details" hidden={!isOpen}>
          <p>{text ?? M.validWhileCampaign}</p>
        </div>
        {isSafeLink(promotion.linkUrl) ? (
          <SmartLink
            className="btn btn--primary btn--small content-card__action"
            href={promotion.linkUrl}
            onClick={() => track('promocion_click', fields)}
          >
            Ver promoción<span className="visually-hidden">: {promotion.title}</span>
          </SmartLink>
        ) : null}
      </div>
    </li>
  );
}

/** /promociones: the promotions in force, then whatever the app adds below (the simulator). */
export function PromotionsPage({ children }: { children?: ReactNode }) {
  const query = usePromotions();
  return (
    <div className="container page content-page">
      <h1>{M.promotionsTitle}</h1>
      <p className="content-page__lead">{M.promotionsLead}</p>
      <section aria-label={M.promotionsLabel} aria-busy={query.isPending}>
        <ContentStates
          query={query}
          loadingLabel="Cargando promociones…"
          empty={PROMOTIONS_EMPTY}
          failure={PROMOTIONS_FAILED}
        >
          {(promotions) => (
            <ul className="content-grid">
              {promotions.map((promotion, index) => (
                <PromotionCard key={promotion.id} promotion={promotion} isFirst={index === 0} />
              ))}
            </ul>
          )}
        </ContentStates>
      </section>
      {children}
    </div>
  );
}
