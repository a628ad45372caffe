import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { LinkOutcome } from '@/components/ui/link-outcome';
import { useSession } from '@/lib/session';

import { useConfirmEmail } from '../api/confirm-email';
import { PROFILE_COPY as M } from '../messages';

import '@/components/ui/button.css';

/** ERR_CONFIRMATION_INVALID's text (docs/api.md), also for a link without a token. */
export const INVALID_CONFIRMATION_LINK = M.confirmationInvalid;
const CONFIRMATION_FAILED = M.confirmationFailed;

/** /confirmar-correo?token=…: confirms the email of the link, for anyone who opens it. */
export function EmailConfirmation({ token }: { token: string | null }) {
  const confirmation = useConfirmEmail(token);
  const { isLoggedIn } = useSession();
  // A member who just registered opens the link without a session: the next step is logging in.
  const onward = isLoggedIn ? (
    <Link to="/mi-club">{M.goToMiClub}</Link>
  ) : (
    <Link to="/login" className="btn btn--primary">
      {M.logIn}
    </Link>
  );
  return (
    <LinkOutcome
      title={M.confirmationTitle}
      token={token}
      query={confirmation}
      invalidLinkMessage={INVALID_CONFIRMATION_LINK}
      loadingLabel={M.confirming}
      failedMessage={CONFIRMATION_FAILED}
      success={(confirmed) => (
        <>
          {confirmed.alreadyConfirmed ? (
            // The same link opened again (a second click, the mail opened later): the address
            // is confirmed, so the page says so and offers to log in instead of calling the
            // link invalid. The answer names no address.
            <Alert tone="success">
              {M.alreadyConfirmed}
              {isLoggedIn ? null : M.canLogIn}
            </Alert>
          ) : (
            <Alert tone="success">
              {M.confirmedBefore}
              <strong>{confirmed.maskedEmail}</strong>
              {M.confirmedAfter}
              {isLoggedIn ? null : M.canLogIn}
            </Alert>
          )}
          {onward}
        </>
      )}
      onward={
        isLoggedIn ? (
          onward
        ) : (
          // Mis Datos resends for a member with a session; anyone else asks here.
          <Link to="/registro/verificar-correo" className="btn btn--primary">
            {M.askNewLink}
          </Link>
        )
      }
    />
  );
}
