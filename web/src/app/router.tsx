import { lazy, Suspense, useEffect, type ReactNode } from 'react';
import { Navigate, Route, Routes, useLocation, useNavigate } from 'react-router-dom';

import { Spinner } from '@/components/ui/spinner';
import { usePortalContext } from '@/features/context/api/get-context';
import { MaintenanceScreen } from '@/features/context/components/maintenance-screen';
import { useProfile } from '@/features/profile/api/get-profile';
import { trackPageType, type PageType } from '@/lib/analytics';
import { SESSION_EXPIRED_NOTICE, useLoginNotice } from '@/lib/login-notice';
import { updateSessionName, useSession } from '@/lib/session';

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

const PAGE_TYPES: Record<string, PageType> = {
  '/login': 'login',
  '/mi-club': 'mi_club',
  '/terminos-y-condiciones': 'terminos_y_condiciones',
  '/confirmar-correo': 'confirmar_correo',
  '/restaurar-correo': 'restaurar_correo',
  '/recuperar-contrasena': 'recuperar_contrasena',
  '/registro': 'registro',
  '/registro/verificar-correo': 'verificar_correo',
  '/promociones': 'promociones',
  '/alianzas': 'alianzas',
  '/preguntas-login': 'preguntas_login',
  '/preguntas-frecuentes': 'preguntas_frecuentes',
};

export function pageTypeOf(pathname: string): PageType {
  const normalized = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  return PAGE_TYPES[normalized] ?? 'no_encontrada';
}

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
  if (pageType === 'mi_club' || pathname === '/') void loadMiClub();
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
    navigate(`/login?redirect=${encodeURIComponent(pathname + search)}`, { replace: true });
  }, [notice, isLoggedIn, pathname, search, navigate]);
}

function Gate({ children }: { children: ReactNode }) {
  const { context, isResolving } = usePortalContext();
  const isMaintenance = !isResolving && !context.portalEnabled;
  usePageTypeTracking(isMaintenance);
  useSessionConfirmation();
  useExpiredSessionRedirect();
  useHeadingFocusOnNavigation();
  // Nothing of the portal is shown before the context says whether it is open.
  if (isResolving) return <FullPageSpinner />;
  if (isMaintenance) return <MaintenanceScreen />;
  return <Suspense fallback={<FullPageSpinner />}>{children}</Suspense>;
}

export function AppRoutes() {
  return (
    <Gate>
      <Routes>
        <Route path="/login" element={<LoginRoute />} />
        <Route element={<SiteFrame />}>
          <Route path="/" element={<Navigate to="/mi-club" replace />} />
          <Route path="/mi-club" element={<MiClubRoute />} />
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
