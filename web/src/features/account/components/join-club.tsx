/**
 * Joining in place: what Mi Cuenta shows a member whose balance answered 406 (a login but no club
 * account). One form: the data the portal already holds for them, prefilled and read-only (Mis
 * Datos is where it changes), the terms to accept, and one button. On success the balance card
 * shows $0 and the sections that depended on the account are read again (see `useOpenAccount`).
 */
import { useId, useRef, useState, type FormEvent } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { TextField } from '@/components/ui/text-field';
import { track } from '@/lib/analytics';
import { errorCodeOf, toDisplayError, type DisplayError } from '@/lib/errors';
import { formatRut } from '@/lib/rut';
import { useSession } from '@/lib/session';

import { useMemberData, type MemberData } from '../api/get-member-data';
import { useOpenAccount } from '../api/open-account';
import { JOIN_COPY as J } from '../messages';

import './join-club.css';

function fullName(member: MemberData): string {
  return [member.name, member.last_name, member.mother_surname].filter((part) => part && part.trim()).join(' ');
}

function documentOf(member: MemberData): string {
  return member.documentType === 'RUT' ? formatRut(member.documentNumber) : member.documentNumber;
}

/** `onJoined`: the account is open (its balance is already in the query). */
export function JoinClub({ onJoined }: { onJoined?: () => void }) {
  const { isConfirmed } = useSession();
  const memberData = useMemberData({ enabled: isConfirmed });
  const openAccount = useOpenAccount();
  const [accepted, setAccepted] = useState(false);
  const [termsError, setTermsError] = useState<string | null>(null);
  const [failure, setFailure] = useState<DisplayError | null>(null);
  const termsRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const termsErrorId = useId();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // A second submit while the first is on its way sends nothing (the gateway would answer
    // the same account anyway).
    if (openAccount.isPending) return;
    setFailure(null);
    if (!accepted) {
      setTermsError(J.termsRequired);
      termsRef.current?.focus();
      track('union_club_fallida', { codigo_error: 'TERMINOS_NO_ACEPTADOS' });
      return;
    }
    openAccount.mutate(undefined, {
      onSuccess: (account) => {
        track('terminos_y_condiciones_aceptado', { version: account.termsVersion });
        track('union_club_exitosa', { cuenta_nueva: account.opened });
        onJoined?.();
      },
      onError: (error) => {
        track('union_club_fallida', { codigo_error: errorCodeOf(error) });
        setFailure(toDisplayError(error, J.failed));
      },
    });
  }

  const member = memberData.data;
  return (
    <form className="join-club" aria-labelledby={titleId} onSubmit={submit} noValidate>
      <h3 className="join-club__title" id={titleId}>
        {J.title}
      </h3>
      <p className="join-club__intro">{J.intro}</p>
      {member ? (
        <fieldset className="join-club__data">
          <legend className="join-club__legend">{J.dataLabel}</legend>
          <div className="form-grid">
            <TextField label={J.name} name="name" value={fullName(member)} readOnly autoComplete="name" />
            <TextField
              label={J.document(member.documentType)}
              name="document"
              value={documentOf(member)}
              readOnly
              autoComplete="off"
            />
            <TextField label={J.email} name="email" type="email" value={member.email} readOnly autoComplete="email" />
            {member.phone_number ? (
              <TextField label={J.phone} name="phone" type="tel" value={member.phone_number} readOnly autoComplete="tel" />
            ) : null}
          </div>
          <p className="join-club__note">{J.dataNote}</p>
        </fieldset>
      ) : memberData.isPending && isConfirmed ? (
        <Spinner label={J.dataLoading} />
      ) : null}
      <div className={`field join-club__terms${termsError ? ' field--invalid' : ''}`}>
        <label className="checkbox join-club__check">
          <input
            ref={termsRef}
            type="checkbox"
            name="acceptTermsAndConditions"
            checked={accepted}
            onChange={(event) => {
              setAccepted(event.target.checked);
              if (event.target.checked) setTermsError(null);
            }}
            aria-invalid={termsError ? true : undefined}
            aria-describedby={termsError ? termsErrorId : undefined}
          />
          <span>{J.acceptTerms}</span>
        </label>
        <a className="join-club__terms-link" href="/terminos-y-condiciones" target="_blank" rel="noopener noreferrer">
          {J.readTerms}
        </a>
        {termsError ? (
          <p className="field__error" id={termsErrorId} role="alert">
            {termsError}
          </p>
        ) : null}
      </div>
      {failure ? (
        <Alert action={failure.action}>{failure.message}</Alert>
      ) : null}
      <Button type="submit" isLoading={openAccount.isPending} className="btn--block">
        {J.submit}
      </Button>
    </form>
  );
}
