/**
 * Step 3: the password (the portal's rules) and the terms, which open in a new tab so the form
 * keeps what was typed. A 5xx or no answer keeps everything: the same button sends it again,
 * which the gateway finishes as the same member.
 */
import { useId, useRef, useState, type FormEvent } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { PasswordField } from '@/components/ui/password-field';
import { trackClick } from '@/lib/analytics';
import { PASSWORD_MAX_LENGTH, PASSWORD_RULES } from '@/lib/password';

import { useCompleteRegistration } from '../api/complete-registration';
import { REGISTRATION_COPY as M } from '../messages';
import {
  COMPLETION_FIELDS,
  registrationFailure,
  validateCompletion,
  type CompletionErrors,
  type CompletionField,
} from '../utils/registration-rules';

import { SECTION } from './identity-step';
import { StepHeader } from './step-header';

import '@/components/ui/field.css';
import '@/styles/login-card.css';
import './password-step.css';

type PasswordStepProps = {
  focusHeading: boolean;
  onCompleted: (maskedEmail: string) => void;
  onExpired: (error: unknown) => void;
  onFailed: (error: unknown) => void;
  onBack: () => void;
  onCancel: () => void;
  isCancelling: boolean;
};

export function PasswordStep({ focusHeading, onCompleted, onExpired, onFailed, onBack, onCancel, isCancelling }: PasswordStepProps) {
  const complete = useCompleteRegistration();
  const [password, setPassword] = useState('');
  const [acceptTerms, setAcceptTerms] = useState(false);
  const [errors, setErrors] = useState<CompletionErrors>({});
  const passwordRef = useRef<HTMLInputElement>(null);
  const termsRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const termsErrorId = useId();

  const failure = complete.isError ? registrationFailure(complete.error, COMPLETION_FIELDS) : null;
  const generalError = failure && failure.kind === 'general' ? failure.display : null;

  function focus(field: CompletionField) {
    (field === 'password' ? passwordRef : termsRef).current?.focus();
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('registro_crear_cuenta', SECTION);
    const found = validateCompletion(password, acceptTerms);
    setErrors(found);
    const firstInvalid = COMPLETION_FIELDS.find((field) => found[field]);
    if (firstInvalid) {
      focus(firstInvalid);
      return;
    }
    complete.mutate(
      { password, acceptTerms },
      {
        onSuccess: (answer) => {
          // No password stays in memory once it is no longer needed.
          setPassword('');
          onCompleted(answer.maskedEmail);
        },
        onError: (error) => {
          onFailed(error);
          const next = registrationFailure(error, COMPLETION_FIELDS);
          if (next.kind === 'expired') {
            setPassword('');
            onExpired(error);
          } else if (next.kind === 'field') {
            setErrors({ [next.field]: next.message });
            focus(next.field);
          }
        },
      },
    );
  }

  return (
    <form className="login-step registration-step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <StepHeader step={3} titleId={titleId} focusHeading={focusHeading} />
      {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
      <PasswordField
        ref={passwordRef}
        label={M.password}
        name="password"
        autoComplete="new-password"
        // A few characters past the limit, so the over-long message can still be seen.
        maxLength={PASSWORD_MAX_LENGTH + 16}
        value={password}
        onChange={(event) => {
          setPassword(event.target.value);
          if (errors.password) setErrors((previous) => ({ ...previous, password: undefined }));
        }}
        hint={PASSWORD_RULES}
        error={errors.password ?? null}
        required
      />
      <div className={`field terms-consent${errors.acceptTerms ? ' field--invalid' : ''}`}>
        <label className="checkbox terms-consent__check">
          <input
            ref={termsRef}
            type="checkbox"
            name="acceptTerms"
            checked={acceptTerms}
            onChange={(event) => {
              setAcceptTerms(event.target.checked);
              if (errors.acceptTerms) setErrors((previous) => ({ ...previous, acceptTerms: undefined }));
            }}
            aria-invalid={errors.acceptTerms ? true : undefined}
            aria-describedby={errors.acceptTerms ? termsErrorId : undefined}
          />
          <span>{M.acceptTerms}</span>
        </label>
        <a className="terms-consent__link" href="/terminos-y-condiciones" target="_blank" rel="noopener noreferrer">
          {M.readTerms}
        </a>
        {errors.acceptTerms ? (
          <p className="field__error" id={termsErrorId} role="alert">
            {errors.acceptTerms}
          </p>
        ) : null}
      </div>
      <Button type="submit" isLoading={complete.isPending} disabled={isCancelling} className="btn--block">
        {M.createAccount}
      </Button>
      <div className="login-step__secondary">
        <Button
          variant="link"
          disabled={complete.isPending || isCancelling}
          onClick={() => {
            trackClick('registro_volver_paso_2', SECTION);
            onBack();
          }}
        >
          {M.back}
        </Button>
        <Button variant="link" disabled={complete.isPending} isLoading={isCancelling} onClick={onCancel}>
          {M.cancelRegistration}
        </Button>
      </div>
    </form>
  );
}
