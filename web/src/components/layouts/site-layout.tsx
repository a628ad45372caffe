import { useEffect, useId, useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';

import { Logo } from '@/components/ui/logo';
import { SmartLink } from '@/components/ui/smart-link';

import type { SiteLinks } from '@/lib/site-links';

import '@/styles/brand.css';
import './site-layout.css';

type SiteLayoutProps = {
  links: SiteLinks;
  /** Session controls at the header's end (log in, the member's name). */
  headerActions?: ReactNode;
  /** Room at the bottom on small screens for a route with a fixed bottom bar. */
  bottomSpacer?: boolean;
  children: ReactNode;
};

type FooterGroup = { title: string; items: { label: string; href: string }[] };

function footerGroups(links: SiteLinks): FooterGroup[] {
  return [
    {
      title: 'Preguntas frecuentes',
      items: [
        { label: 'Preguntas frecuentes', href: links.faq },
        { label: 'Ayuda para iniciar sesión', href: '/preguntas-login' },
      ],
    },
    {
      title: 'Legal',
      items: [
        { label: 'Política de privacidad', href: links.privacyPolicy },
        { label: 'Política de cookies', href: links.cookiePolicy },
      ],
    },
    {
      title: 'Tiendas y despacho',
      items: [
        { label: 'Nuestras tiendas', href: links.stores },
        { label: 'Retiro en tienda', href: links.pickup },
        { label: 'Cobertura supermercado', href: links.supermarketCoverage },
      ],
    },
    {
      title: 'Nosotros',
      items: [
        { label: 'Quiénes somos', href: links.aboutUs },
        { label: 'Términos y condiciones', href: '/terminos-y-condiciones' },
        { label: 'Información legal', href: links.legalInfo },
        { label: 'Ganadores aniversario', href: links.anniversaryWinners },
        { label: 'Bases influencers', href: links.influencerRules },
      ],
    },
    {
      title: 'Síguenos',
      items: [
        { label: 'Facebook', href: links.facebook },
        { label: 'Instagram', href: links.instagram },
        { label: 'Twitter', href: links.twitter },
        { label: 'YouTube', href: links.youtube },
      ],
    },
  ];
}

type NavItem = { label: string; href: string };

/**
 * The top navigation: a row of links from 958 px; below, a "Menú" button that opens them as a
 * list under the header (closed again by the button or Escape), so no link is cut off.
 */
function SiteNav({ items }: { items: NavItem[] }) {
  const [open, setOpen] = useState(false);
  const listId = useId();
  useEffect(() => {
    if (!open) return undefined;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [open]);
  return (
    <nav className={`site-nav${open ? ' site-nav--open' : ''}`} aria-label="Principal">
      <div className="container site-nav__inner">
        <button
          type="button"
          className="site-nav__toggle"
          aria-expanded={open}
          aria-controls={listId}
          onClick={() => setOpen((value) => !value)}
        >
          <span className="site-nav__toggle-icon" aria-hidden="true" />
          Menú
        </button>
        <ul className="site-nav__list" id={listId}>
          {items.map((item) => (
            <li key={item.label}>
              <a className="site-nav__link" href={item.href}>
                {item.label}
              </a>
            </li>
          ))}
        </ul>
      </div>
    </nav>
  );
}

/** Header, main and footer of every route but /login (spec section 2). */
export function SiteLayout({ links, headerActions, bottomSpacer = false, children }: SiteLayoutProps) {
  const navItems = [
    { label: 'Home', href: links.home },
    { label: 'Alianzas', href: links.alliances },
    { label: 'Más formas de acumular', href: links.moreWaysToAccumulate },
    { label: 'Tarjeta Lider BCI', href: links.liderBciCard },
  ];
  return (
    <div className="site">
      <a className="skip-link" href="#contenido">
        Saltar al contenido
      </a>
      <header className="site-header">
        <div className="site-header__bar">
          <div className="container site-header__bar-inner">
            <Link to="/mi-club" className="brand" aria-label="Mi Club, inicio">
              <Logo tone="on-dark" />
            </Link>
            <div className="site-header__actions">{headerActions}</div>
          </div>
        </div>
        <SiteNav items={navItems} />
      </header>
      <main id="contenido" className="site-main" tabIndex={-1}>
        {children}
      </main>
      <footer className="site-footer">
        <div className="container">
          <div className="site-footer__brand">
            <Logo tone="on-dark" height={32} />
            <p className="site-footer__tagline">Tus compras suman. Tus beneficios, también.</p>
          </div>
          <div className="site-footer__groups">
            {footerGroups(links).map((group, index) => (
              <section key={group.title} className="site-footer__group" aria-labelledby={`footer-group-${index}`}>
                <h2 className="site-footer__title" id={`footer-group-${index}`}>
                  {group.title}
                </h2>
                <ul>
                  {group.items.map((item) => (
                    <li key={item.label}>
                      <SmartLink href={item.href}>{item.label}</SmartLink>
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </div>
          <p className="site-footer__legal">
            © {new Date().getFullYear()} Mi Club. Beneficios sujetos a los términos y condiciones del programa.
          </p>
        </div>
      </footer>
      {bottomSpacer ? <div className="bottom-spacer" data-testid="bottom-spacer" aria-hidden="true" /> : null}
    </div>
  );
}
