import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { ApiError } from '@/lib/api-client';
import { toDisplayError } from '@/lib/errors';
import { useSession } from '@/lib/session';

import { useConfirmEmail } from '../api/confirm-email';

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
  // A 4xx is the link's final answer; no answer or a 5xx can be tried again.
  const canRetry =
    confirmation.isError && !(confirmation.error instanceof ApiError && confirmation.error.status < 500);
  return (
    <div className="container page">
      <section className="panel panel--narrow" aria-busy={confirmation.isLoading}>
        <h1 className="panel__title">Confirmación de correo</h1>
        {!token ? <Alert>{INVALID_CONFIRMATION_LINK}</Alert> : null}
        {token && confirmation.isPending ? <Spinner label="Confirmando tu correo…" /> : null}
        {confirmation.isSuccess ? (
          <>
            <Alert tone="success">
              ¡Listo! Confirmamos tu correo <strong>{confirmation.data.maskedEmail}</strong>.
              {isLoggedIn ? null : ' Ya puedes iniciar sesión en Mi Club.'}
            </Alert>
            {onward}
          </>
        ) : null}
        {confirmation.isError ? (
          <>
            <Alert>{toDisplayError(confirmation.error, CONFIRMATION_FAILED).message}</Alert>
            {canRetry ? (
              <Button variant="secondary" onClick={() => void confirmation.refetch()} isLoading={confirmation.isFetching}>
                Reintentar
              </Button>
            ) : isLoggedIn ? (
              onward
            ) : (
              // Mis Datos resends for a member with a session; anyone else asks here.
              <Link to="/registro/verificar-correo" className="btn btn--primary">
                Pedir un nuevo enlace
              </Link>
            )}
          </>
        ) : null}
      </section>
    </div>
  );
}
