import { useEffect } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { LinkOutcome } from '@/components/ui/link-outcome';

import { useRestoreEmail } from '../api/restore-email';

import '@/components/ui/button.css';

/** For a link without a token; the gateway's own message answers a spent or unknown one. */
export const INVALID_RESTORATION_LINK = 'El enlace para restaurar tu correo no es válido o ya expiró.';
const RESTORATION_FAILED = 'No pudimos restaurar tu correo. Intenta de nuevo más tarde.';

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
      Iniciar sesión
    </Link>
  );
  return (
    <LinkOutcome
      title="Restaurar tu correo"
      token={token}
      query={restoration}
      invalidLinkMessage={INVALID_RESTORATION_LINK}
      loadingLabel="Restaurando tu correo…"
      failedMessage={RESTORATION_FAILED}
      success={(answer) => (
        <>
          <Alert tone="success">
            Restauramos tu correo <strong>{answer.maskedEmail}</strong> y cerramos todas las sesiones de tu cuenta.
            Inicia sesión y cambia tu contraseña.
          </Alert>
          {toLogin}
        </>
      )}
      onward={toLogin}
    />
  );
}
