/**
 * The whole login, in the page and in the modal: the password step, the one-time code step and
 * the migrating member's notice, moved between by the events of login-flow-state.ts.
 */
import { useId, useReducer, useState, type Dispatch, type FormEvent } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { CodeField } from '@/components/ui/code-field';
import { ResendCode } from '@/components/ui/resend-code';
import { SmartLink } from '@/components/ui/smart-link';
import { TextField } from '@/components/ui/text-field';
import { UserField, userFieldError } from '@/components/ui/user-field';
import { track, trackClick } from '@/lib/analytics';
import type { DisplayError } from '@/lib/errors';
import { useFocusOnShow } from '@/lib/focus-on-show';
import { startSession } from '@/lib/session';

import { useLogin, type LoginChallenge } from '../api/login';
import { useResendOtp } from '../api/resend-otp';
import { useValidateOtp, type LoginResult } from '../api/validate-otp';

import { LOGIN_MESSAGES as M } from '../messages';

import { endsChallenge, loginErrorCode, loginErrorToDisplay } from './login-errors';
import { INITIAL_LOGIN_STATE, loginReducer, type LoginEvent } from './login-flow-state';

import '@/components/ui/field.css';
import '@/styles/login-card.css';
import './login-flow.css';

export type LoginVariant = 'pagina' | 'modal';

type LoginFlowProps = {
  variant: LoginVariant;
  recaptchaSiteKey: string | null;
  isLoginMaintenance: boolean;
  /** After LoginConfirmed (and, for a migrating member, after the welcome notice). */
  onLoggedIn: (result: LoginResult) => void;
  /** A link inside the flow was followed (the modal closes). */
  onNavigate?: () => void;
};

const OTP_LENGTH = 6;

/** The whole login: password step, one-time code step, and the migrating-member notice. */
export function LoginFlow({ variant, recaptchaSiteKey, isLoginMaintenance, onLoggedIn, onNavigate }: LoginFlowProps) {
  const [state, dispatch] = useReducer(loginReducer, INITIAL_LOGIN_STATE);
  const { step } = state;

  if (isLoginMaintenance) return <LoginMaintenance />;

  if (step.name === 'migrating') {
    return <MigratingNotice result={step.result} onContinue={() => onLoggedIn(step.result)} />;
  }

  if (step.name === 'code') {
    return (
      <OtpStep
        variant={variant}
        challenge={step.challenge}
        resendAvailableAt={step.resendAvailableAt}
        dispatch={dispatch}
        onConfirmed={async (result) => {
          // Awaited: what follows (the member's pages, or the migrating member's notice and its
          // button to them) comes once the session has started, a previous member's card deleted.
          await startSession({ name: result.name || null, hasMissions: result.hasMissions });
          dispatch({ type: 'loginConfirmed', result });
          track('login_exitoso', { metodo: variant, usuario_migrando: result.isUserMigrating });
          if (!result.isUserMigrating) onLoggedIn(result);
        }}
      />
    );
  }

  return (
    <CredentialsStep
      variant={variant}
      recaptchaSiteKey={recaptchaSiteKey}
      user={state.user}
      isForeign={state.isForeign}
      password={state.password}
      carriedError={state.carriedError}
      dispatch={dispatch}
      onNavigate={onNavigate}
    />
  );
}

function LoginMaintenance() {
  return (
    <div className="login-maintenance" role="status">
      <h2 className="login-step__title">{M.maintenanceTitle}</h2>
      <p>{M.maintenanceText}</p>
    </div>
  );
}

type CredentialsStepProps = {
  variant: LoginVariant;
  recaptchaSiteKey: string | null;
  user: string;
  isForeign: boolean;
  password: string;
  carriedError: DisplayError | null;
  dispatch: Dispatch<LoginEvent>;
  onNavigate?: () => void;
};

function CredentialsStep(props: CredentialsStepProps) {
  const { variant, recaptchaSiteKey, user, isForeign, password, carriedError, dispatch, onNavigate } = props;
  const loginMutation = useLogin();
  const [userError, setUserError] = useState<string | null>(null);
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [showPassword, setShowPassword] = useState(false);

  const serverError = loginMutation.isError ? loginErrorToDisplay(loginMutation.error) : carriedError;

  function validate(): boolean {
    const nextUserError = userFieldError(user, isForeign);
    const nextPasswordError = password ? null : M.passwordMissing;
    setUserError(nextUserError);
    setPasswordError(nextPasswordError);
    return !nextUserError && !nextPasswordError;
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('ingresar', variant === 'modal' ? 'login_modal' : 'login');
    if (!validate()) return;
    loginMutation.mutate(
      { user: user.trim(), password, recaptchaSiteKey },
      {
        onSuccess: (challenge) => dispatch({ type: 'userPasswordValidated', challenge, at: Date.now() }),
        onError: (error) =>
          track('login_fallido', { metodo: variant, paso: 'contrasena', codigo_error: loginErrorCode(error) }),
      },
    );
  }

  return (
    <form className="login-step" onSubmit={onSubmit} noValidate aria-label={M.credentialsForm}>
      {serverError ? <Alert action={serverError.action}>{serverError.message}</Alert> : null}
      <UserField
        value={user}
        onChange={(value) => {
          dispatch({ type: 'userChanged', user: value });
          if (userError) setUserError(null);
        }}
        isForeign={isForeign}
        onForeignChange={(value) => dispatch({ type: 'documentKindChanged', isForeign: value })}
        error={userError}
      />
      <TextField
        label={M.password}
        name="password"
        type={showPassword ? 'text' : 'password'}
        autoComplete="current-password"
        value={password}
        onChange={(event) => {
          dispatch({ type: 'passwordChanged', password: event.target.value });
          if (passwordError) setPasswordError(null);
        }}
        error={passwordError}
        required
        trailing={
          <button
            type="button"
            className="field__toggle"
            aria-pressed={showPassword}
            onClick={() => setShowPassword((value) => !value)}
          >
            {showPassword ? M.hide : M.show}
            <span className="visually-hidden">{M.passwordToggleSuffix}</span>
          </button>
        }
      />
      <Button type="submit" isLoading={loginMutation.isPending} className="btn--block">
        {M.submit}
      </Button>
      <div className="login-step__links">
        <SmartLink href="/recuperar-contrasena" onClick={onNavigate}>
          {M.forgotPassword}
        </SmartLink>
        <SmartLink href="/registro" onClick={onNavigate}>
          {M.register}
        </SmartLink>
        <SmartLink href="/preguntas-login" onClick={onNavigate}>
          {M.loginHelp}
        </SmartLink>
      </div>
    </form>
  );
}

type OtpStepProps = {
  variant: LoginVariant;
  challenge: LoginChallenge;
  resendAvailableAt: number;
  dispatch: Dispatch<LoginEvent>;
  onConfirmed: (result: LoginResult) => void;
};

function OtpStep({ variant, challenge, resendAvailableAt, dispatch, onConfirmed }: OtpStepProps) {
  const validateMutation = useValidateOtp();
  const resendMutation = useResendOtp();
  const [otp, setOtp] = useState('');
  const [otpError, setOtpError] = useState<string | null>(null);
  const inputRef = useFocusOnShow<HTMLInputElement>();
  const titleId = useId();
  const section = variant === 'modal' ? 'login_modal' : 'login';

  const validateError = validateMutation.isError ? loginErrorToDisplay(validateMutation.error) : null;
  const resendError = resendMutation.isError ? loginErrorToDisplay(resendMutation.error) : null;
  // resendSuccess: shown until the member tries the new code.
  const resendSuccess = resendMutation.isSuccess && validateMutation.isIdle;
  const destination = challenge.destination || M.yourEmail;
  const minutes = Math.max(1, Math.round(challenge.expiresInSeconds / 60));

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('validar_codigo', section);
    if (otp.length !== OTP_LENGTH) {
      setOtpError(M.codeIncomplete);
      return;
    }
    resendMutation.reset();
    validateMutation.mutate(otp, {
      onSuccess: onConfirmed,
      onError: (error) => {
        track('login_fallido', { metodo: variant, paso: 'codigo', codigo_error: loginErrorCode(error) });
        if (endsChallenge(error)) dispatch({ type: 'challengeEnded', error: loginErrorToDisplay(error) });
        else setOtp('');
      },
    });
  }

  function onResend() {
    trackClick('reenviar_codigo', section);
    validateMutation.reset();
    resendMutation.mutate(undefined, {
      onSuccess: (next) => {
        dispatch({ type: 'codeResent', challenge: next, at: Date.now() });
        setOtp('');
        inputRef.current?.focus();
      },
      onError: (error) => {
        if (endsChallenge(error)) dispatch({ type: 'challengeEnded', error: loginErrorToDisplay(error) });
      },
    });
  }

  return (
    <form className="login-step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId}>
        {M.codeTitle}
      </h2>
      <p className="login-step__intro">
        {M.codeSentTo}
        <strong>{destination}</strong>
        {M.expiresIn(minutes)}
      </p>
      {resendSuccess ? <Alert tone="success">{M.codeResentTo(destination)}</Alert> : null}
      {validateError ? <Alert action={validateError.action}>{validateError.message}</Alert> : null}
      {resendError ? <Alert action={resendError.action}>{resendError.message}</Alert> : null}
      <CodeField
        ref={inputRef}
        name="otp"
        length={OTP_LENGTH}
        value={otp}
        onChange={(digits) => {
          setOtp(digits);
          if (otpError) setOtpError(null);
        }}
        error={otpError}
      />
      <Button type="submit" isLoading={validateMutation.isPending} className="btn--block">
        {M.validateCode}
      </Button>
      <ResendCode
        availableAt={resendAvailableAt}
        isResending={resendMutation.isPending}
        onResend={onResend}
        onBack={() => {
          trackClick('volver', section);
          dispatch({ type: 'challengeEnded', error: null });
        }}
      />
    </form>
  );
}

function MigratingNotice({ result, onContinue }: { result: LoginResult; onContinue: () => void }) {
  const headingRef = useFocusOnShow<HTMLHeadingElement>();
  const titleId = useId();
  return (
    <section className="login-step" aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        {M.welcome(result.name)}
      </h2>
      <p>{M.migratedText}</p>
      <Button onClick={onContinue} className="btn--block">
        {M.continue}
      </Button>
    </section>
  );
}
