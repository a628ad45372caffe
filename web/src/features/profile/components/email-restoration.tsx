import { useEffect } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { LinkOutcome } from '@/components/ui/link-outcome';

import { useRestoreEmail } from '../api/restore-email';
import { PROFILE_COPY as M } from '../messages';

import '@/components/ui/button.css';

/** For a link without a token; the gateway's own message answers a spent or unknown one. */
export const INVALID_RESTORATION_LINK = M.restorationInvalid;
const RESTORATION_FAILED = M.restorationFailed;

type EmailRestorationProps = {
  token: string | null;
  /** The gateway revoked every session of the member: this browser's session is gone too. */
  onRestored: () => void;
};

/**
 * /restaurar-correo?token=…: the link of the notice "Tu correo de Mi Club cambió", sent to the
 * previous address. Opening it puts that address back and ends every session of the account, so
 * whoever changed the email is logged out; the member logs in again and changes the password.
 */
export function EmailRestoration({ token, onRestored }: EmailRestorationProps) {
  const restoration = useRestoreEmail(token);
  const restored = restoration.isSuccess;
  useEffect(() => {
    if (restored) onRestored();
    // Once, when the answer arrives.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [restored]);
  const toLogin = (
    <Link to="/login" className="btn btn--primary">
      {M.logIn}
    </Link>
  );
  return (
    <LinkOutcome
      title={M.restorationTitle}
      token={token}
      query={restoration}
      invalidLinkMessage={INVALID_RESTORATION_LINK}
      loadingLabel={M.restoring}
      failedMessage={RESTORATION_FAILED}
      success={(answer) => (
        <>
          <Alert tone="success">
            {M.restoredBefore}
            <strong>{answer.maskedEmail}</strong>
            {M.restoredAfter}
          </Alert>
          {toLogin}
        </>
      )}
      onward={toLogin}
    />
  );
}
