/**
 * Links to the chain's marketing pages in the header and footer (spec section 2). Ops can change
 * each one without a redeploy through `links` in `GET /api/context`; these are the defaults.
 */

import { isPortalPath } from './portal-path';

export type SiteLinkKey =
  | 'home'
  | 'alliances'
  | 'moreWaysToAccumulate'
  | 'liderBciCard'
  | 'faq'
  | 'privacyPolicy'
  | 'cookiePolicy'
  | 'stores'
  | 'pickup'
  | 'supermarketCoverage'
  | 'aboutUs'
  | 'legalInfo'
  | 'anniversaryWinners'
  | 'influencerRules'
  | 'facebook'
  | 'instagram'
  | 'twitter'
  | 'youtube';

export type SiteLinks = Record<SiteLinkKey, string>;

export const DEFAULT_SITE_LINKS: SiteLinks = {
  home: 'https://www.lider.cl/',
  alliances: 'https://www.lider.cl/mi-club/alianzas',
  moreWaysToAccumulate: 'https://www.lider.cl/mi-club/mas-formas-de-acumular',
  liderBciCard: 'https://www.tarjetaliderbci.cl/',
  /** The portal's own general FAQs (content service); ops may point it elsewhere. */
  faq: '/preguntas-frecuentes',
  privacyPolicy: 'https://www.lider.cl/politica-de-privacidad',
  cookiePolicy: 'https://www.lider.cl/politica-de-cookies',
  stores: 'https://www.lider.cl/tiendas',
  pickup: 'https://www.lider.cl/retiro-en-tienda',
  supermarketCoverage: 'https://www.lider.cl/cobertura-supermercado',
  aboutUs: 'https://www.lider.cl/quienes-somos',
  legalInfo: 'https://www.lider.cl/informacion-legal',
  anniversaryWinners: 'https://www.lider.cl/ganadores-aniversario',
  influencerRules: 'https://www.lider.cl/bases-influencers',
  facebook: 'https://www.facebook.com/lider.cl',
  instagram: 'https://www.instagram.com/lider_cl',
  twitter: 'https://twitter.com/lider_cl',
  youtube: 'https://www.youtube.com/@lidercl',
};

/** Accepts only absolute http(s) URLs or paths of this site, so a bad value cannot run script. */
export function isSafeLink(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0) return false;
  if (value.startsWith('/')) return isPortalPath(value);
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Defaults overridden by whichever known keys the gateway sent with a safe URL. */
export function mergeSiteLinks(overrides: unknown): SiteLinks {
  const links = { ...DEFAULT_SITE_LINKS };
  if (typeof overrides !== 'object' || overrides === null) return links;
  for (const key of Object.keys(links) as SiteLinkKey[]) {
    const value = (overrides as Record<string, unknown>)[key];
    if (isSafeLink(value)) links[key] = value;
  }
  return links;
}
