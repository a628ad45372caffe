import { useState } from 'react';

import { Button } from '@/components/ui/button';
import { SmartLink } from '@/components/ui/smart-link';
import { Spinner } from '@/components/ui/spinner';
import { trackClick } from '@/lib/analytics';
import { isSafeLink } from '@/lib/site-links';

import { useBanners, type Banner } from '../api/get-banners';
import { CONTENT_COPY as M } from '../messages';

import { ContentImage } from './content-states';

import './banner-strip.css';

export const BANNERS_FAILED = M.bannersFailed;

function Slide({ banner }: { banner: Banner }) {
  const content = (
    <>
      <ContentImage
        className="banner__image"
        src={banner.imageUrl}
        alt={banner.imageAlt || ''}
        width={960}
        height={280}
        fetchPriority="high"
      />
      <span className="banner__text">
        <span className="banner__title">{banner.title}</span>
        {banner.subtitle ? <span className="banner__subtitle">{banner.subtitle}</span> : null}
      </span>
    </>
  );
  if (isSafeLink(banner.linkUrl)) {
    return (
      <SmartLink className="banner" href={banner.linkUrl} onClick={() => trackClick(`banner_${banner.id}`, 'mi_club')}>
        {content}
      </SmartLink>
    );
  }
  return <div className="banner">{content}</div>;
}

/**
 * The campaign banners of the /mi-club home: one at a time, moved only by the member (no
 * autoplay, WCAG 2.2.2), each image with its alt text. Nothing is shown when there are none.
 */
export function BannerStrip() {
  const query = useBanners();
  const [current, setCurrent] = useState(0);
  if (query.isPending) {
    return (
      <div className="banner-strip banner-strip--loading">
        <Spinner size="small" label={M.bannersLoading} />
      </div>
    );
  }
  if (query.isError) {
    return (
      <div className="banner-strip banner-strip--failed">
        <p>{BANNERS_FAILED}</p>
        <Button variant="link" onClick={() => void query.refetch()} isLoading={query.isFetching}>
          {M.retry}
        </Button>
      </div>
    );
  }
  const banners = query.data;
  if (banners.length === 0) return null;
  const index = Math.min(current, banners.length - 1);
  const banner = banners[index];
  return (
    <section className="banner-strip" aria-roledescription="carrusel" aria-label={M.bannersLabel}>
      <div
        className="banner-strip__slide"
        role="group"
        aria-roledescription="diapositiva"
        aria-label={M.bannerPosition(index + 1, banners.length)}
      >
        {banner ? <Slide banner={banner} /> : null}
      </div>
      {banners.length > 1 ? (
        <div className="banner-strip__controls">
          <button
            type="button"
            className="banner-strip__button"
            onClick={() => setCurrent((index - 1 + banners.length) % banners.length)}
          >
            <span aria-hidden="true">‹</span>
            <span className="visually-hidden">{M.previousBanner}</span>
          </button>
          <span className="banner-strip__position" aria-live="polite">
            {index + 1} de {banners.length}
          </span>
          <button
            type="button"
            className="banner-strip__button"
            onClick={() => setCurrent((index + 1) % banners.length)}
          >
            <span aria-hidden="true">›</span>
            <span className="visually-hidden">{M.nextBanner}</span>
          </button>
        </div>
      ) : null}
    </section>
  );
}
