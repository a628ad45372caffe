import { Navigate } from 'react-router-dom';

import { AccountHome } from '@/features/account/components/account-home';
import { useSession } from '@/lib/session';

import { useLogout } from '../logout';

/** /mi-club: members only; visitors without a session go to /login. */
export default function MiClubRoute() {
  const session = useSession();
  const { logout, isLoggingOut } = useLogout();
  if (!session.isLoggedIn) return <Navigate to="/login" replace />;
  return (
    <AccountHome
      name={session.name}
      hasMissions={session.hasMissions}
      onLogout={() => void logout()}
      isLoggingOut={isLoggingOut}
    />
  );
}
