import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router-dom';

import { Spinner } from '@/components/ui/spinner';
import { getBalanceQueryOptions } from '@/features/account/api/get-balance';
import { AccountHome } from '@/features/account/components/account-home';
import {
  ACCOUNT_ACTIVITY_PATH,
  ACCOUNT_HOME_PATH,
  movementIdOfPath,
  normalizePath,
  sectionFor,
  withAccountNotice,
} from '@/features/account/stores/account-menu';
import { usePortalContext } from '@/features/context/api/get-context';
import { setProfileTermsAgreement, useProfile } from '@/features/profile/api/get-profile';
import type { TermsDecided } from '@/features/terms/api/decide-terms';
import { SESSION_EXPIRED_NOTICE, useLoginNotice } from '@/lib/login-notice';
import { useSession } from '@/lib/session';

import { loginPathBackTo } from '../login-path';
import { performLogout, useLogout } from '../logout';
import { stopSessionRenewal } from '../session-keeper';

import NotFoundRoute from './not-found';

// Each section of the menu is its own chunk, loaded when the member opens it.
const ProfileSection = lazy(() =>
  import('@/features/profile/components/profile-section').then((module) => ({ default: module.ProfileSection })),
);
const AccountActivity = lazy(() =>
  import('@/features/security/components/account-activity').then((module) => ({ default: module.AccountActivity })),
);
const MovementsSection = lazy(() =>
  import('@/features/movements/components/movements-section').then((module) => ({
    default: module.MovementsSection,
  })),
);
const MovementDetailSection = lazy(() =>
  import('@/features/movements/components/movement-detail').then((module) => ({
    default: module.MovementDetailSection,
  })),
);
const MemberCardSection = lazy(() =>
  import('@/features/card/components/member-card').then((module) => ({ default: module.MemberCardSection })),
);
const UnsubscribeFlow = lazy(() =>
  import('@/features/unsubscribe/components/unsubscribe-flow').then((module) => ({ default: module.UnsubscribeFlow })),
);
const MissionsSection = lazy(() =>
  import('@/features/missions/components/missions-section').then((module) => ({ default: module.MissionsSection })),
);
const BannerStrip = lazy(() =>
  import('@/features/content/components/banner-strip').then((module) => ({ default: module.BannerStrip })),
);
const SimulatorForm = lazy(() =>
  import('@/features/simulator/components/simulator-form').then((module) => ({ default: module.SimulatorForm })),
);
const TermsSection = lazy(() =>
  import('@/features/terms/components/terms-section').then((module) => ({ default: module.TermsSection })),
);

const NewTermsPrompt = lazy(() =>
  import('@/features/terms/components/new-terms-prompt').then((module) => ({ default: module.NewTermsPrompt })),
);

export const TERMS_ACCEPTED_NOTICE = 'Aceptaste los términos y condiciones.';
export const TERMS_REJECTED_NOTICE =
  'Rechazaste los términos y condiciones. Puedes aceptarlos cuando quieras desde Términos y Condiciones.';

function SectionChunk({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Spinner />}>{children}</Suspense>;
}

/**
 * Whether the balance has answered (or failed), watched without asking for it. What Mi Cuenta
 * shows around the balance (the simulator, the banners, a new version of the terms) loads after
 * it, so on a slow phone the balance's request and paint are not queued behind their chunks.
 */
function useBalanceSettled(): boolean {
  return useQuery({ ...getBalanceQueryOptions(), enabled: false }).status !== 'pending';
}

/** Mi Cuenta's content below the balance, once the balance is on screen. */
function AfterBalance({ children }: { children: ReactNode }) {
  return useBalanceSettled() ? children : null;
}

/**
 * After a terms decision (in the section or in the new-version prompt) the profile holds it and
 * the member goes to Mi Cuenta with its notice, as a new history entry: Back returns to where
 * they decided.
 */
function useTermsDecided() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  return (decided: TermsDecided) => {
    setProfileTermsAgreement(queryClient, decided.terms_agreement);
    navigate(ACCOUNT_HOME_PATH, {
      state: withAccountNotice(
        decided.terms_agreement.agreement === 'accepted' ? TERMS_ACCEPTED_NOTICE : TERMS_REJECTED_NOTICE,
      ),
    });
  };
}

/** Terms [3]: the decision lives in the profile; after an update the menu goes to Mi Cuenta. */
function TermsPanel() {
  const { isConfirmed } = useSession();
  const profile = useProfile({ enabled: isConfirmed });
  const onDecided = useTermsDecided();
  return (
    <SectionChunk>
      <TermsSection
        agreement={profile.data?.terms_agreement ?? null}
        isAgreementLoading={!profile.data && !profile.isError}
        onDecided={onDecided}
      />
    </SectionChunk>
  );
}

/**
 * A newer version of the terms than the one the member decided on is put to them here, after
 * login and on every load of /mi-club (once per session and version, see NewTermsPrompt).
 */
function NewTermsCheck({ afterBalance }: { afterBalance: boolean }) {
  const { isConfirmed } = useSession();
  const profile = useProfile({ enabled: isConfirmed });
  const onDecided = useTermsDecided();
  const balanceSettled = useBalanceSettled();
  if (!profile.data || (afterBalance && !balanceSettled)) return null;
  return (
    <Suspense fallback={null}>
      <NewTermsPrompt agreement={profile.data.terms_agreement ?? null} onDecided={onDecided} />
    </Suspense>
  );
}

/**
 * /mi-club and its sections (/mi-club/mis-datos with its page /mi-club/mis-datos/actividad,
 * /movimientos and a movement's explanation /movimientos/{id}, /terminos, /misiones, /tarjeta):
 * members only.
 * A visitor without a session goes to /login, which brings them back to the same address after
 * logging in; a member who just logged out here goes to /login with no way back.
 */
export default function MiClubRoute() {
  const session = useSession();
  const { context } = usePortalContext();
  const { logout, isLoggingOut } = useLogout();
  const queryClient = useQueryClient();
  const { pathname, search } = useLocation();
  const loginNotice = useLoginNotice();
  // Read once: a session that ends while this page is shown was ended here (a logout, or a forced
  // one, which app/router.tsx sends to /login with its own way back).
  const [arrivedLoggedIn] = useState(session.isLoggedIn);
  const answer = sectionFor(pathname, session.hasMissions);
  const movementId = movementIdOfPath(pathname);
  // An address that never existed is not found for anyone: no login is asked to learn that.
  if (answer.kind === 'not-found') return <NotFoundRoute />;
  if (!session.isLoggedIn) {
    // A forced logout is app/router.tsx's to send to /login with its way back; leaving for plain
    // /login here as well showed that address for a moment before the other.
    if (arrivedLoggedIn && loginNotice === SESSION_EXPIRED_NOTICE) return null;
    return <Navigate to={arrivedLoggedIn ? '/login' : loginPathBackTo(pathname + search)} replace />;
  }
  if (answer.kind === 'redirect') return <Navigate to={answer.to} replace />;
  return (
    <>
      <AccountHome
        name={session.name}
        hasMissions={session.hasMissions}
        selectedIndex={answer.item.index}
        onLogout={() => void logout()}
        isLoggingOut={isLoggingOut}
        // The simulator (a form of known height) before the banners, whose height is known only
        // once their data arrives: last on the page, their arrival pushes nothing on screen. One
        // boundary for both: a banner shown before the simulator's chunk arrived would sit in
        // the first screen for a moment and then be pushed down by it.
        homeBelow={
          <AfterBalance>
            <SectionChunk>
              <SimulatorForm />
              <BannerStrip />
            </SectionChunk>
          </AfterBalance>
        }
        sections={{
          1: normalizePath(pathname) === ACCOUNT_ACTIVITY_PATH ? (
            <SectionChunk>
              <AccountActivity />
            </SectionChunk>
          ) : (
            <SectionChunk>
              <ProfileSection
                accountActivityPath={ACCOUNT_ACTIVITY_PATH}
                changePasswordEnable={context.changePasswordEnable}
                // The gateway already ended the session: no renewal may run into its 401 meanwhile.
                onPasswordChanged={stopSessionRenewal}
                onLogoutAfterPasswordChange={() => void logout()}
                renderUnsubscribe={(close) => (
                  <SectionChunk>
                    <UnsubscribeFlow
                      onClose={close}
                      onUnsubscribed={(farewell) => {
                        // The gateway already ended the session: reset like a logout, then /login
                        // (where this page sends a visitor without session) shows the farewell.
                        void performLogout(queryClient, { notifyGateway: false, notice: farewell });
                      }}
                    />
                  </SectionChunk>
                )}
              />
            </SectionChunk>
          ),
          2: (
            <SectionChunk>
              {movementId === null ? <MovementsSection /> : <MovementDetailSection movementId={movementId} />}
            </SectionChunk>
          ),
          3: <TermsPanel />,
          4: (
            <SectionChunk>
              <MissionsSection />
            </SectionChunk>
          ),
          5: (
            <SectionChunk>
              <MemberCardSection />
            </SectionChunk>
          ),
        }}
      />
      <NewTermsCheck afterBalance={answer.item.index === 0} />
    </>
  );
}
