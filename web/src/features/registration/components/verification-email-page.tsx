/**
 * /registro/verificar-correo: the action of ERR_EMAIL_NOT_VERIFIED at login. The member gives
 * the RUT or document and a new verification email goes out if the account waits for one; the
 * page says the same either way, so it tells nobody who is a member.
 *
 * The gateway's action link carries what the member typed at login (`?rut=33.333.333-3`, or
 * `?documento=AB12345` for a foreign document), so the field comes prefilled; a value that is
 * not a well-formed document is ignored and the field starts empty.
 */
import { useId, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { UserField, userFieldError } from '@/components/ui/user-field';
import { trackClick } from '@/lib/analytics';
import { ApiError } from '@/lib/api-client';
import { capitalizeFirst, toDisplayError } from '@/lib/errors';
import { formatRut, isValidRut } from '@/lib/rut';

import { useResendVerificationEmail } from '../api/resend-verification-email';
import { REGISTRATION_COPY as M } from '../messages';

import '@/styles/login-card.css';

export const VERIFICATION_EMAIL_SENT = M.verificationSent;
const VERIFICATION_EMAIL_FAILED = 'No pudimos enviar el correo. Intenta de nuevo en unos momentos.';

/** A failure that belongs under the RUT or document field. */
function userFailure(error: unknown): string | null {
  if (!(error instanceof ApiError) || !error.body) return null;
  if (error.body.field === 'user' || error.code === 'ERR_INVALID_RUT') return capitalizeFirst(error.body.message);
  return null;
}

/** The document the link came with, as the field shows it, or an empty RUT field. */
export function prefilledUser(params: URLSearchParams): { user: string; isForeign: boolean } {
  const rut = params.get('rut');
  if (rut && isValidRut(rut)) return { user: formatRut(rut), isForeign: false };
  const document = params.get('documento')?.trim().toUpperCase() ?? '';
  if (/^[0-9A-Z]{5,20}$/.test(document) && /[A-Z]/.test(document)) return { user: document, isForeign: true };
  return { user: '', isForeign: false };
}

export function VerificationEmailPage({ recaptchaSiteKey }: { recaptchaSiteKey: string | null }) {
  const resend = useResendVerificationEmail();
  const [searchParams] = useSearchParams();
  const [prefilled] = useState(() => prefilledUser(searchParams));
  const [user, setUser] = useState(prefilled.user);
  const [isForeign, setIsForeign] = useState(prefilled.isForeign);
  const [userError, setUserError] = useState<string | null>(null);
  const titleId = useId();

  const generalError =
    resend.isError && !userFailure(resend.error) ? toDisplayError(resend.error, VERIFICATION_EMAIL_FAILED) : null;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('reenviar_correo_verificacion', 'verificar_correo');
    const found = userFieldError(user, isForeign);
    setUserError(found);
    if (found) return;
    resend.mutate({ user: user.trim(), recaptchaSiteKey }, { onError: (error) => setUserError(userFailure(error)) });
  }

  return (
    <div className="container page recovery-page">
      <div className="login-card">
        <h1 className="login-card__title">{M.verifyTitle}</h1>
        <p className="login-card__subtitle">
          {M.verifySubtitle}
        </p>
        <form className="login-step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
          <h2 className="login-step__title" id={titleId}>
            {M.verifyFormTitle}
          </h2>
          {resend.isSuccess ? <Alert tone="success">{VERIFICATION_EMAIL_SENT}</Alert> : null}
          {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
          <UserField
            value={user}
            onChange={(value) => {
              setUser(value);
              if (userError) setUserError(null);
            }}
            isForeign={isForeign}
            onForeignChange={(value) => {
              setIsForeign(value);
              setUserError(null);
            }}
            error={userError}
          />
          <Button type="submit" isLoading={resend.isPending} className="btn--block">
            {M.resendEmail}
          </Button>
          <div className="login-step__links">
            <Link to="/login">{M.backToLogin}</Link>
          </div>
        </form>
      </div>
    </div>
  );
}
