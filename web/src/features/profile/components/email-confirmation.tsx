import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { LinkOutcome } from '@/components/ui/link-outcome';
import { useSession } from '@/lib/session';

import { useConfirmEmail } from '../api/confirm-email';

import '@/components/ui/button.css';

/** ERR_CONFIRMATION_INVALID's text (docs/api.md), also for a link without a token. */
export const INVALID_CONFIRMATION_LINK =
  'El enlace de confirmación no es válido o ya expiró. Pide uno nuevo.';
const CONFIRMATION_FAILED = 'No pudimos confirmar tu correo. Intenta de nuevo más tarde.';

/** /confirmar-correo?token=…: confirms the email of the link, for anyone who opens it. */
export function EmailConfirmation({ token }: { token: string | null }) {
  const confirmation = useConfirmEmail(token);
  const { isLoggedIn } = useSession();
  // A member who just registered opens the link without a session: the next step is logging in.
  const onward = isLoggedIn ? (
    <Link to="/mi-club">Ir a Mi Club</Link>
  ) : (
    <Link to="/login" className="btn btn--primary">
      Iniciar sesión
    </Link>
  );
  return (
    <LinkOutcome
      title="Confirmación de correo"
      token={token}
      query={confirmation}
      invalidLinkMessage={INVALID_CONFIRMATION_LINK}
      loadingLabel="Confirmando tu correo…"
      failedMessage={CONFIRMATION_FAILED}
      success={(confirmed) => (
        <>
          <Alert tone="success">
            ¡Listo! Confirmamos tu correo <strong>{confirmed.maskedEmail}</strong>.
            {isLoggedIn ? null : ' Ya puedes iniciar sesión en Mi Club.'}
          </Alert>
          {onward}
        </>
      )}
      onward={
        isLoggedIn ? (
          onward
        ) : (
          // Mis Datos resends for a member with a session; anyone else asks here.
          <Link to="/registro/verificar-correo" className="btn btn--primary">
            Pedir un nuevo enlace
          </Link>
        )
      }
    />
  );
}
