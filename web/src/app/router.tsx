import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router-dom';

import { Spinner } from '@/components/ui/spinner';
import { getBalanceQueryOptions } from '@/features/account/api/get-balance';
import { usePortalContext } from '@/features/context/api/get-context';
import { MaintenanceScreen } from '@/features/context/components/maintenance-screen';
import { useProfile } from '@/features/profile/api/get-profile';
import { trackPageType, type PageType } from '@/lib/analytics';
import { SESSION_EXPIRED_NOTICE, useLoginNotice } from '@/lib/login-notice';
import { updateSessionName, useSession } from '@/lib/session';

import { loginPathBackTo } from './login-path';
import { pageTitleOf, useDocumentTitle } from './page-title';
import { isAccountPage, pageTypeOf } from './page-type';
import { useHeadingFocusOnNavigation } from './route-focus';
import { useSessionKeeper } from './session-keeper';

import './router.css';

// Route-level code splitting: /login loads only its own chunk, not the site frame or /mi-club.
const loadLogin = () => import('./routes/login');
const loadSiteFrame = () => import('./routes/site-frame');
const loadMiClub = () => import('./routes/mi-club');
const loadPromotions = () => import('./routes/promotions');
const loadAlliances = () => import('./routes/alliances');
const loadFaqs = () => import('./routes/faqs');
const loadNotFound = () => import('./routes/not-found');
const loadTerms = () => import('./routes/terms');
const loadConfirmEmail = () => import('./routes/confirm-email');
const loadRestoreEmail = () => import('./routes/restore-email');
const loadPasswordRecovery = () => import('./routes/password-recovery');
const loadRegistration = () => import('./routes/registration');
const loadVerificationEmail = () => import('./routes/verification-email');

const LoginRoute = lazy(loadLogin);
const SiteFrame = lazy(loadSiteFrame);
const MiClubRoute = lazy(loadMiClub);
const PromotionsRoute = lazy(loadPromotions);
const AlliancesRoute = lazy(loadAlliances);
const FaqsRoute = lazy(loadFaqs);
const NotFoundRoute = lazy(loadNotFound);
const TermsRoute = lazy(loadTerms);
const ConfirmEmailRoute = lazy(loadConfirmEmail);
const RestoreEmailRoute = lazy(loadRestoreEmail);
const PasswordRecoveryRoute = lazy(loadPasswordRecovery);
const RegistrationRoute = lazy(loadRegistration);
const VerificationEmailRoute = lazy(loadVerificationEmail);

// The page types moved to ./page-type.ts (shared with the titles); this is their old address.
export { pageTypeOf };

/**
 * Starts loading the chunks of the first route while the context is still being read, instead
 * of after (the routes render only once the context says the portal is open).
 */
export function preloadRoute(pathname: string): void {
  const pageType = pageTypeOf(pathname);
  if (pageType === 'login') {
    void loadLogin();
    return;
  }
  void loadSiteFrame();
  if (isAccountPage(pageType) || pathname === '/') void loadMiClub();
  else if (pageType === 'terminos_y_condiciones') void loadTerms();
  else if (pageType === 'confirmar_correo') void loadConfirmEmail();
  else if (pageType === 'restaurar_correo') void loadRestoreEmail();
  else if (pageType === 'recuperar_contrasena') void loadPasswordRecovery();
  else if (pageType === 'registro') void loadRegistration();
  else if (pageType === 'verificar_correo') void loadVerificationEmail();
  else if (pageType === 'promociones') void loadPromotions();
  else if (pageType === 'alianzas') void loadAlliances();
  else if (pageType === 'preguntas_login' || pageType === 'preguntas_frecuentes') void loadFaqs();
  else void loadNotFound();
}

function FullPageSpinner() {
  return (
    <div className="full-page-spinner">
      <Spinner />
    </div>
  );
}

function usePageTypeTracking(isMaintenance: boolean) {
  const { pathname } = useLocation();
  useEffect(() => {
    trackPageType(isMaintenance ? 'mantencion' : pageTypeOf(pathname), pathname);
  }, [pathname, isMaintenance]);
}

/**
 * Once the session is checked (renewed on reload), GET /api/profile confirms who is logged in
 * and refreshes the name on screen; a 401 logs out.
 */
function useSessionConfirmation() {
  const session = useSession();
  useSessionKeeper();
  const profile = useProfile({ enabled: session.isLoggedIn && session.isConfirmed });
  useEffect(() => {
    if (profile.data) updateSessionName(profile.data.name);
  }, [profile.data]);
}

/**
 * The balance is what a member opening Mi Cuenta came for: on the page load that lands there it
 * is asked for as soon as the portal is known to be open and the session to work, while Mi
 * Cuenta's chunks are still loading, not when its card first renders (get-balance.ts keeps the
 * answer current for that moment, so the card does not ask twice).
 */
function useBalanceWarmUp(isOpen: boolean) {
  const { isLoggedIn, isConfirmed } = useSession();
  const { pathname } = useLocation();
  const queryClient = useQueryClient();
  const [landedOnAccountHome] = useState(() => pageTypeOf(pathname) === 'mi_club');
  const warmed = useRef(false);
  useEffect(() => {
    if (warmed.current || !landedOnAccountHome || !isOpen || !isLoggedIn || !isConfirmed) return;
    warmed.current = true;
    void queryClient.prefetchQuery(getBalanceQueryOptions());
  }, [landedOnAccountHome, isOpen, isLoggedIn, isConfirmed, queryClient]);
}

/**
 * Pages a forced logout does not leave: /login itself, and the flows for people without a
 * session (a mailed link, recovery, registration), which may well end every session themselves.
 */
const STAY_AFTER_FORCED_LOGOUT = new Set<PageType>([
  'login',
  'confirmar_correo',
  'restaurar_correo',
  'recuperar_contrasena',
  'registro',
  'verificar_correo',
]);

/**
 * After a forced logout the member reads on /login that the session expired, instead of being
 * logged out silently on whatever page was open; logging in again comes back to that page.
 * (/mi-club sends a visitor to /login by itself.)
 */
function useExpiredSessionRedirect() {
  const notice = useLoginNotice();
  const { isLoggedIn } = useSession();
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  useEffect(() => {
    if (notice !== SESSION_EXPIRED_NOTICE || isLoggedIn || STAY_AFTER_FORCED_LOGOUT.has(pageTypeOf(pathname))) return;
    navigate(loginPathBackTo(pathname + search), { replace: true });
  }, [notice, isLoggedIn, pathname, search, navigate]);
}

/**
 * The page's title in `document.title`, and what the live region says after a client navigation
 * (the title, only when focus could not go to the new page's heading: ./route-focus.ts says why).
 */
function useRouteTitle(isMaintenance: boolean): string {
  const { pathname } = useLocation();
  const title = pageTitleOf(pathname, { isMaintenance });
  useDocumentTitle(title);
  const [announcement, setAnnouncement] = useState('');
  // The same words twice in a row would not be read again: a no-break space makes them new.
  const announce = useCallback(
    () => setAnnouncement((previous) => (previous === title ? `${title}\u00a0` : title)),
    [title],
  );
  useHeadingFocusOnNavigation(announce);
  return announcement;
}

function Gate({ children }: { children: ReactNode }) {
  const { context, isResolving } = usePortalContext();
  const isMaintenance = !isResolving && !context.portalEnabled;
  usePageTypeTracking(isMaintenance);
  useSessionConfirmation();
  useBalanceWarmUp(!isResolving && !isMaintenance);
  useExpiredSessionRedirect();
  const announcement = useRouteTitle(isMaintenance);
  let page: ReactNode;
  // Nothing of the portal is shown before the context says whether it is open.
  if (isResolving) page = <FullPageSpinner />;
  else if (isMaintenance) page = <MaintenanceScreen />;
  else page = <Suspense fallback={<FullPageSpinner />}>{children}</Suspense>;
  return (
    <>
      <div className="visually-hidden" aria-live="polite" aria-atomic="true" data-testid="route-announcer">
        {announcement}
      </div>
      {page}
    </>
  );
}

export function AppRoutes() {
  return (
    <Gate>
      <Routes>
        <Route path="/login" element={<LoginRoute />} />
        <Route element={<SiteFrame />}>
          <Route path="/" element={<Navigate to="/mi-club" replace />} />
          {/* Mi Cuenta and its sections; the route itself answers unknown addresses below it. */}
          <Route path="/mi-club/*" element={<MiClubRoute />} />
          <Route path="/terminos-y-condiciones" element={<TermsRoute />} />
          <Route path="/confirmar-correo" element={<ConfirmEmailRoute />} />
          <Route path="/restaurar-correo" element={<RestoreEmailRoute />} />
          <Route path="/recuperar-contrasena" element={<PasswordRecoveryRoute />} />
          <Route path="/registro" element={<RegistrationRoute />} />
          <Route path="/registro/verificar-correo" element={<VerificationEmailRoute />} />
          <Route path="/promociones" element={<PromotionsRoute />} />
          <Route path="/alianzas" element={<AlliancesRoute />} />
          <Route path="/preguntas-login" element={<FaqsRoute audience="login" />} />
          <Route path="/preguntas-frecuentes" element={<FaqsRoute audience="general" />} />
          <Route path="*" element={<NotFoundRoute />} />
        </Route>
      </Routes>
    </Gate>
  );
}
