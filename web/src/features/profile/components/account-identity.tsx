import { useQueryClient } from '@tanstack/react-query';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { ApiError } from '@/lib/api-client';
import { toDisplayError } from '@/lib/errors';
import { formatRut } from '@/lib/rut';

import { profileQueryKey, type MemberProfile } from '../api/get-profile';
import { useResendEmailConfirmation } from '../api/resend-email-confirmation';
import { PROFILE_COPY as M } from '../messages';

import '@/styles/badge.css';
import './account-identity.css';

const RESEND_FAILED = M.resendFailed;

/** The canonical document as a member reads it: a RUT with dots and dash, a foreign one as is. */
export function displayDocument(profile: MemberProfile): { label: string; value: string } | null {
  const number = profile.documentNumber?.trim();
  if (!number) return null;
  if (profile.documentType === 'FOREIGN') return { label: M.document, value: number };
  return { label: M.rut, value: formatRut(number) };
}

/** What the member cannot edit here: the document, and whether the email is confirmed. */
export function AccountIdentity({ profile }: { profile: MemberProfile }) {
  const resend = useResendEmailConfirmation();
  const queryClient = useQueryClient();
  const document = displayDocument(profile);
  const confirmed = profile.email_confirmed !== false;

  function onResend() {
    resend.mutate(undefined, {
      onError: (error) => {
        // Confirmed meanwhile (in another tab, say): show it as such.
        if (error instanceof ApiError && error.code === 'ERR_EMAIL_ALREADY_CONFIRMED') {
          void queryClient.invalidateQueries({ queryKey: profileQueryKey, exact: true });
        }
      },
    });
  }

  return (
    <dl className="identity">
      {document ? (
        <div className="identity__row">
          <dt>{document.label}</dt>
          <dd data-testid="profile-document">{document.value}</dd>
        </div>
      ) : null}
      <div className="identity__row">
        <dt>{M.email}</dt>
        <dd>
          <span className="identity__email">{profile.email}</span>{' '}
          <span
            className={`badge ${confirmed ? 'badge--ok' : 'badge--pending'}`}
            data-testid="email-status"
          >
            {confirmed ? M.confirmed : M.unconfirmed}
          </span>
          {!confirmed ? (
            <div className="identity__pending">
              <p>{M.checkInbox}</p>
              {resend.isSuccess ? (
                <Alert tone="success">Te enviamos un nuevo enlace de confirmación a {profile.email}.</Alert>
              ) : null}
              {resend.isError ? <Alert>{toDisplayError(resend.error, RESEND_FAILED).message}</Alert> : null}
              <Button variant="secondary" onClick={onResend} isLoading={resend.isPending}>
                {M.resendConfirmation}
              </Button>
            </div>
          ) : null}
        </dd>
      </div>
    </dl>
  );
}
