import { lazy, Suspense } from 'react';
import { Link, Outlet, useLocation } from 'react-router-dom';

import { SiteLayout } from '@/components/layouts/site-layout';
import { Spinner } from '@/components/ui/spinner';
import { menuItemOfPath } from '@/features/account/stores/account-menu';
import { usePortalContext } from '@/features/context/api/get-context';
import { trackClick } from '@/lib/analytics';
import { openLoginModal, useLoginModal } from '@/lib/login-modal';
import { useSession } from '@/lib/session';

import '@/components/ui/button.css';
import './site-frame.css';

const LoginModal = lazy(() =>
  import('@/features/auth/components/login-modal').then((module) => ({ default: module.LoginModal })),
);

/**
 * The route whose fixed bottom bar (the account menu) needs a spacer on small screens: Mi Cuenta
 * and each of its sections.
 */
function hasBottomBar(pathname: string): boolean {
  return menuItemOfPath(pathname) !== null;
}

function HeaderActions() {
  const session = useSession();
  if (session.isLoggedIn) {
    return (
      <Link to="/mi-club" className="header-account">
        <span className="header-account__avatar" aria-hidden="true">
          {(session.name ?? 'M').charAt(0).toUpperCase()}
        </span>
        <span>{session.name ? `Hola, ${session.name}` : 'Mi cuenta'}</span>
      </Link>
    );
  }
  return (
    <>
      <Link to="/registro" className="btn btn--secondary btn--small">
        Únete
      </Link>
      <button
        type="button"
        className="btn btn--primary btn--small"
        onClick={() => {
          trackClick('iniciar_sesion', 'header');
          openLoginModal({ redirectUrl: '/mi-club' });
        }}
      >
        Iniciar sesión
      </button>
    </>
  );
}

/** Header, main and footer around every route but /login, plus the login modal. */
export default function SiteFrame() {
  const { context } = usePortalContext();
  const { pathname } = useLocation();
  const { isOpen } = useLoginModal();
  return (
    <>
      <SiteLayout
        links={context.links}
        headerActions={<HeaderActions />}
        bottomSpacer={hasBottomBar(pathname)}
      >
        <Suspense
          fallback={
            <div className="container page">
              <Spinner />
            </div>
          }
        >
          <Outlet />
        </Suspense>
      </SiteLayout>
      {isOpen ? (
        <Suspense fallback={null}>
          <LoginModal recaptchaSiteKey={context.recaptchaSiteKey} isLoginMaintenance={context.isLoginMaintenance} />
        </Suspense>
      ) : null}
    </>
  );
}
