/**
 * The password recovery of /recuperar-contrasena: the RUT or document (step 1), then the mailed
 * code with the new password (step 2), then the notice to log in again. Focus moves to each
 * step's heading when the step changes, so screen readers announce where the member is. The
 * steps move by the events of password-recovery-state.ts.
 */
import { useId, useReducer, useRef, useState, type Dispatch, type FormEvent } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CodeField } from '@/components/ui/code-field';
import { PasswordField } from '@/components/ui/password-field';
import { ResendCode } from '@/components/ui/resend-code';
import { UserField, userFieldError } from '@/components/ui/user-field';
import { track, trackClick } from '@/lib/analytics';
import type { DisplayError } from '@/lib/errors';
import { useFocusOnShow } from '@/lib/focus-on-show';
import { PASSWORD_MAX_LENGTH, PASSWORD_RULES } from '@/lib/password';

import { useRequestRecovery, type RecoveryChallenge } from '../api/request-recovery';
import { useResendRecoveryCode } from '../api/resend-recovery-code';
import { useResetPassword } from '../api/reset-password';
import { RECOVERY_MESSAGES as M } from '../messages';
import {
  CODE_LENGTH,
  endsRecovery,
  recoveryErrorToDisplay,
  resetFieldFailure,
  userFieldFailure,
  validateReset,
  type ResetErrors,
  type ResetField,
} from '../utils/recovery-rules';

import { INITIAL_RECOVERY_STATE, recoveryReducer, type RecoveryEvent, type RecoveryStep } from './password-recovery-state';
import '@/components/ui/button.css';
import '@/styles/login-card.css';

const SECTION = 'recuperar_contrasena';

export const RESET_DONE_MESSAGE = M.done;

type PasswordRecoveryFlowProps = {
  recaptchaSiteKey: string | null;
  /** The gateway changed the password and revoked every session: clear what the browser shows. */
  onPasswordReset: () => void;
};

export function PasswordRecoveryFlow({ recaptchaSiteKey, onPasswordReset }: PasswordRecoveryFlowProps) {
  const [state, dispatch] = useReducer(recoveryReducer, INITIAL_RECOVERY_STATE);
  const { step, hasMoved } = state;

  if (step.name === 'done') return <DoneStep focusHeading={hasMoved} />;

  if (step.name === 'code') {
    return (
      <CodeStep
        step={step}
        focusHeading={hasMoved}
        dispatch={dispatch}
        onReset={() => {
          track('recuperar_contrasena_exitoso', { reenvios: step.resends });
          onPasswordReset();
          dispatch({ type: 'passwordReset' });
        }}
      />
    );
  }

  return (
    <UserStep
      recaptchaSiteKey={recaptchaSiteKey}
      focusHeading={hasMoved}
      user={state.user}
      isForeign={state.isForeign}
      carriedError={state.carriedError}
      dispatch={dispatch}
      onRequested={(challenge) => {
        track('recuperar_contrasena_paso_1', { tipo_documento: state.isForeign ? 'extranjero' : 'rut' });
        dispatch({ type: 'codeSent', challenge, at: Date.now() });
      }}
    />
  );
}

type UserStepProps = {
  recaptchaSiteKey: string | null;
  focusHeading: boolean;
  user: string;
  isForeign: boolean;
  carriedError: DisplayError | null;
  dispatch: Dispatch<RecoveryEvent>;
  onRequested: (challenge: RecoveryChallenge) => void;
};

function UserStep(props: UserStepProps) {
  const { recaptchaSiteKey, focusHeading, user, isForeign, carriedError, dispatch, onRequested } = props;
  const request = useRequestRecovery();
  const [userError, setUserError] = useState<string | null>(null);
  const headingRef = useFocusOnShow<HTMLHeadingElement>(focusHeading);
  const titleId = useId();

  const generalError =
    request.isError && !userFieldFailure(request.error) ? recoveryErrorToDisplay(request.error) : carriedError;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('enviar_codigo', SECTION);
    const found = userFieldError(user, isForeign);
    setUserError(found);
    if (found) return;
    request.mutate(
      { user: user.trim(), recaptchaSiteKey },
      {
        onSuccess: onRequested,
        onError: (error) => setUserError(userFieldFailure(error)),
      },
    );
  }

  return (
    <form className="login-step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        {M.userTitle}
      </h2>
      <p className="login-step__intro">{M.userIntro}</p>
      {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
      <UserField
        value={user}
        onChange={(value) => {
          dispatch({ type: 'userChanged', user: value });
          if (userError) setUserError(null);
        }}
        isForeign={isForeign}
        onForeignChange={(value) => {
          dispatch({ type: 'documentKindChanged', isForeign: value });
          setUserError(null);
        }}
        error={userError}
      />
      <Button type="submit" isLoading={request.isPending} className="btn--block">
        {M.sendCode}
      </Button>
      <div className="login-step__links">
        <Link to="/login">{M.backToLogin}</Link>
      </div>
    </form>
  );
}

type CodeStepProps = {
  step: Extract<RecoveryStep, { name: 'code' }>;
  focusHeading: boolean;
  dispatch: Dispatch<RecoveryEvent>;
  onReset: () => void;
};

function CodeStep({ step, focusHeading, dispatch, onReset }: CodeStepProps) {
  const { challenge, expiresInSeconds, resendAvailableAt, resends } = step;
  const reset = useResetPassword();
  const resend = useResendRecoveryCode();
  const [code, setCode] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [errors, setErrors] = useState<ResetErrors>({});
  const headingRef = useFocusOnShow<HTMLHeadingElement>(focusHeading);
  const codeRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const titleId = useId();

  const resetError = reset.isError && !resetFieldFailure(reset.error) ? recoveryErrorToDisplay(reset.error) : null;
  const resendError = resend.isError ? recoveryErrorToDisplay(resend.error) : null;
  // Shown until the member tries the new code.
  const resendSuccess = resend.isSuccess && reset.isIdle;
  const minutes = Math.max(1, Math.round(expiresInSeconds / 60));

  function focus(field: ResetField) {
    (field === 'code' ? codeRef : passwordRef).current?.focus();
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('cambiar_contrasena', SECTION);
    const found = validateReset(code, newPassword);
    setErrors(found);
    const firstInvalid = (['code', 'newPassword'] as const).find((field) => found[field]);
    if (firstInvalid) {
      focus(firstInvalid);
      return;
    }
    resend.reset();
    track('recuperar_contrasena_paso_2', { reenvios: resends });
    reset.mutate(
      { code, newPassword },
      {
        onSuccess: () => {
          // No password stays in memory once it is no longer needed.
          setNewPassword('');
          setCode('');
          onReset();
        },
        onError: (error) => {
          if (endsRecovery(error)) {
            setNewPassword('');
            dispatch({ type: 'recoveryEnded', error: recoveryErrorToDisplay(error) });
            return;
          }
          const failure = resetFieldFailure(error);
          if (!failure) return;
          if (failure.field === 'code') setCode('');
          setErrors({ [failure.field]: failure.message });
          focus(failure.field);
        },
      },
    );
  }

  function onResend() {
    trackClick('reenviar_codigo', SECTION);
    reset.reset();
    resend.mutate(undefined, {
      onSuccess: (next) => {
        dispatch({ type: 'codeResent', timing: next, at: Date.now() });
        setCode('');
        setErrors((previous) => ({ ...previous, code: undefined }));
        codeRef.current?.focus();
      },
      onError: (error) => {
        if (endsRecovery(error)) dispatch({ type: 'recoveryEnded', error: recoveryErrorToDisplay(error) });
      },
    });
  }

  return (
    <form className="login-step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        {M.codeTitle}
      </h2>
      <Alert tone="info">{challenge.message}</Alert>
      <p className="login-step__intro">{M.expiresIn(minutes)}</p>
      {resendSuccess ? <Alert tone="success">{M.codeResent}</Alert> : null}
      {resetError ? <Alert action={resetError.action}>{resetError.message}</Alert> : null}
      {resendError ? <Alert action={resendError.action}>{resendError.message}</Alert> : null}
      <CodeField
        ref={codeRef}
        name="code"
        length={CODE_LENGTH}
        value={code}
        onChange={(digits) => {
          setCode(digits);
          if (errors.code) setErrors((previous) => ({ ...previous, code: undefined }));
        }}
        error={errors.code ?? null}
      />
      <PasswordField
        ref={passwordRef}
        label={M.newPassword}
        name="newPassword"
        autoComplete="new-password"
        // A few characters past the limit, so the over-long message can still be seen.
        maxLength={PASSWORD_MAX_LENGTH + 16}
        value={newPassword}
        onChange={(event) => {
          setNewPassword(event.target.value);
          if (errors.newPassword) setErrors((previous) => ({ ...previous, newPassword: undefined }));
        }}
        hint={PASSWORD_RULES}
        error={errors.newPassword ?? null}
        required
      />
      <Button type="submit" isLoading={reset.isPending} className="btn--block">
        {M.changePassword}
      </Button>
      <ResendCode
        availableAt={resendAvailableAt}
        isResending={resend.isPending}
        onResend={onResend}
        onBack={() => {
          trackClick('volver', SECTION);
          dispatch({ type: 'recoveryEnded', error: null });
        }}
      />
    </form>
  );
}

function DoneStep({ focusHeading }: { focusHeading: boolean }) {
  const headingRef = useFocusOnShow<HTMLHeadingElement>(focusHeading);
  const titleId = useId();
  return (
    <section className="login-step" aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        {M.doneTitle}
      </h2>
      <Alert tone="success">{RESET_DONE_MESSAGE}</Alert>
      <Link to="/login" className="btn btn--primary btn--block">
        {M.logIn}
      </Link>
    </section>
  );
}
