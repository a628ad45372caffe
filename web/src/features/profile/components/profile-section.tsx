import { useId, useState, type ReactNode } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { useSession } from '@/lib/session';

import { useProfile } from '../api/get-profile';
import { PROFILE_COPY as M } from '../messages';

import { AccountIdentity } from './account-identity';
import { PasswordChangeForm } from './password-change-form';
import { ProfileForm } from './profile-form';

import '@/styles/panel.css';
import './profile-section.css';

type ProfileSectionProps = {
  /** The context flag `changePasswordEnable`: the password change shows only while it is on. */
  changePasswordEnable: boolean;
  /** The password changed: the gateway has already ended every session of the member. */
  onPasswordChanged: () => void;
  /** The member read that they must log in again: the app's normal logout. */
  onLogoutAfterPasswordChange: () => void;
  /**
   * The unsubscribe flow, composed by the app: shown in place of Mis Datos after "Darme de baja
   * de Mi Club"; `close` comes back here. Without it the entry is not offered.
   */
  renderUnsubscribe?: (close: () => void) => ReactNode;
  /** The address of Actividad de la cuenta (sessions and security events); without it no link. */
  accountActivityPath?: string;
};

/** "Mis Datos" [1]: the member's document and email status, the profile form, the password. */
export function ProfileSection({
  changePasswordEnable,
  onPasswordChanged,
  onLogoutAfterPasswordChange,
  renderUnsubscribe,
  accountActivityPath,
}: ProfileSectionProps) {
  const [isUnsubscribing, setUnsubscribing] = useState(false);
  if (isUnsubscribing && renderUnsubscribe) return renderUnsubscribe(() => setUnsubscribing(false));
  return (
    <ProfileDetails
      changePasswordEnable={changePasswordEnable}
      onPasswordChanged={onPasswordChanged}
      onLogoutAfterPasswordChange={onLogoutAfterPasswordChange}
      onUnsubscribe={renderUnsubscribe ? () => setUnsubscribing(true) : null}
      accountActivityPath={accountActivityPath}
    />
  );
}

function ProfileDetails({
  changePasswordEnable,
  onPasswordChanged,
  onLogoutAfterPasswordChange,
  onUnsubscribe,
  accountActivityPath,
}: Omit<ProfileSectionProps, 'renderUnsubscribe'> & { onUnsubscribe: (() => void) | null }) {
  // Waits until the session is checked, like the balance.
  const { isConfirmed } = useSession();
  const profile = useProfile({ enabled: isConfirmed });
  const titleId = useId();
  return (
    <section className="panel" aria-labelledby={titleId} aria-busy={profile.isPending}>
      <h2 className="panel__title" id={titleId}>
        {M.sectionTitle}
      </h2>
      {profile.data ? (
        <>
          <AccountIdentity profile={profile.data} />
          <ProfileForm profile={profile.data} />
          {changePasswordEnable ? (
            <PasswordChangeForm onChanged={onPasswordChanged} onLogout={onLogoutAfterPasswordChange} />
          ) : null}
          {accountActivityPath ? (
            <div className="activity-entry">
              <h3 className="activity-entry__title">{M.activityTitle}</h3>
              <p>{M.activityIntro}</p>
              <Link to={accountActivityPath}>{M.activityLink}</Link>
            </div>
          ) : null}
          {onUnsubscribe ? (
            <div className="unsubscribe-entry">
              <h3 className="unsubscribe-entry__title">¿Quieres dejar Mi Club?</h3>
              <p>{M.unsubscribeIntro}</p>
              <Button variant="secondary" onClick={onUnsubscribe}>
                {M.unsubscribe}
              </Button>
            </div>
          ) : null}
        </>
      ) : profile.isError ? (
        <>
          <Alert>{M.loadFailed}</Alert>
          <Button variant="secondary" onClick={() => void profile.refetch()} isLoading={profile.isFetching}>
            {M.retry}
          </Button>
        </>
      ) : (
        <Spinner label={M.loading} />
      )}
    </section>
  );
}
