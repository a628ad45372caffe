import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, type ReactNode } from 'react';
import { Navigate } from 'react-router-dom';

import { Spinner } from '@/components/ui/spinner';
import { AccountHome } from '@/features/account/components/account-home';
import { DEFAULT_MENU_INDEX, selectAccountMenuWithNotice } from '@/features/account/stores/account-menu';
import { usePortalContext } from '@/features/context/api/get-context';
import { setProfileTermsAgreement, useProfile } from '@/features/profile/api/get-profile';
import { useSession } from '@/lib/session';

import { performLogout, useLogout } from '../logout';
import { stopSessionRenewal } from '../session-keeper';

// Each section of the menu is its own chunk, loaded when the member opens it.
const ProfileSection = lazy(() =>
  import('@/features/profile/components/profile-section').then((module) => ({ default: module.ProfileSection })),
);
const MovementsSection = lazy(() =>
  import('@/features/movements/components/movements-section').then((module) => ({
    default: module.MovementsSection,
  })),
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

/** Terms [3]: the decision lives in the profile; after an update the menu goes to Mi Cuenta. */
function TermsPanel() {
  const { isConfirmed } = useSession();
  const profile = useProfile({ enabled: isConfirmed });
  const queryClient = useQueryClient();
  return (
    <SectionChunk>
      <TermsSection
        agreement={profile.data?.terms_agreement ?? null}
        isAgreementLoading={!profile.data && !profile.isError}
        onDecided={(decided) => {
          setProfileTermsAgreement(queryClient, decided.terms_agreement);
          selectAccountMenuWithNotice(
            DEFAULT_MENU_INDEX,
            decided.terms_agreement.agreement === 'accepted' ? TERMS_ACCEPTED_NOTICE : TERMS_REJECTED_NOTICE,
          );
        }}
      />
    </SectionChunk>
  );
}

/**
 * A newer version of the terms than the one the member decided on is put to them here, after
 * login and on every load of /mi-club (once per session and version, see NewTermsPrompt).
 */
function NewTermsCheck() {
  const { isConfirmed } = useSession();
  const profile = useProfile({ enabled: isConfirmed });
  const queryClient = useQueryClient();
  if (!profile.data) return null;
  return (
    <Suspense fallback={null}>
      <NewTermsPrompt
        agreement={profile.data.terms_agreement ?? null}
        onDecided={(decided) => {
          setProfileTermsAgreement(queryClient, decided.terms_agreement);
          selectAccountMenuWithNotice(
            DEFAULT_MENU_INDEX,
            decided.terms_agreement.agreement === 'accepted' ? TERMS_ACCEPTED_NOTICE : TERMS_REJECTED_NOTICE,
          );
        }}
      />
    </Suspense>
  );
}

/** /mi-club: members only; visitors without a session go to /login. */
export default function MiClubRoute() {
  const session = useSession();
  const { context } = usePortalContext();
  const { logout, isLoggingOut } = useLogout();
  const queryClient = useQueryClient();
  if (!session.isLoggedIn) return <Navigate to="/login" replace />;
  return (
    <>
      <AccountHome
        name={session.name}
        hasMissions={session.hasMissions}
        onLogout={() => void logout()}
        isLoggingOut={isLoggingOut}
        homeTop={
          <Suspense fallback={null}>
            <BannerStrip />
          </Suspense>
        }
        homeBottom={
          <SectionChunk>
            <SimulatorForm />
          </SectionChunk>
        }
        sections={{
          1: (
            <SectionChunk>
              <ProfileSection
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
              <MovementsSection />
            </SectionChunk>
          ),
          3: <TermsPanel />,
          4: (
            <SectionChunk>
              <MissionsSection />
            </SectionChunk>
          ),
        }}
      />
      <NewTermsCheck />
    </>
  );
}
