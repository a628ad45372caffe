import { useId } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { useSession } from '@/lib/session';

import { useProfile } from '../api/get-profile';

import { AccountIdentity } from './account-identity';
import { PasswordChangeForm } from './password-change-form';
import { ProfileForm } from './profile-form';

type ProfileSectionProps = {
  /** The context flag `changePasswordEnable`: the password change shows only while it is on. */
  changePasswordEnable: boolean;
  /** The password changed: the gateway has already ended every session of the member. */
  onPasswordChanged: () => void;
  /** The member read that they must log in again: the app's normal logout. */
  onLogoutAfterPasswordChange: () => void;
};

/** "Mis Datos" [1]: the member's document and email status, the profile form, the password. */
export function ProfileSection({
  changePasswordEnable,
  onPasswordChanged,
  onLogoutAfterPasswordChange,
}: ProfileSectionProps) {
  // Waits until the session is checked, like the balance.
  const { isConfirmed } = useSession();
  const profile = useProfile({ enabled: isConfirmed });
  const titleId = useId();
  return (
    <section className="panel" aria-labelledby={titleId} aria-busy={profile.isPending}>
      <h2 className="panel__title" id={titleId}>
        Mis Datos
      </h2>
      {profile.data ? (
        <>
          <AccountIdentity profile={profile.data} />
          <ProfileForm profile={profile.data} />
          {changePasswordEnable ? (
            <PasswordChangeForm onChanged={onPasswordChanged} onLogout={onLogoutAfterPasswordChange} />
          ) : null}
        </>
      ) : profile.isError ? (
        <>
          <Alert>No pudimos cargar tus datos. Intenta de nuevo más tarde.</Alert>
          <Button variant="secondary" onClick={() => void profile.refetch()} isLoading={profile.isFetching}>
            Reintentar
          </Button>
        </>
      ) : (
        <Spinner label="Cargando tus datos…" />
      )}
    </section>
  );
}
