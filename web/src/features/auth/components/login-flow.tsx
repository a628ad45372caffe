import { useEffect, useId, useRef, useState, type FormEvent } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { SmartLink } from '@/components/ui/smart-link';
import { TextField } from '@/components/ui/text-field';
import { UserField, userFieldError } from '@/components/ui/user-field';
import { track, trackClick } from '@/lib/analytics';
import { useSecondsUntil } from '@/lib/countdown';
import type { DisplayError } from '@/lib/errors';
import { startSession } from '@/lib/session';

import { useLogin, type LoginChallenge } from '../api/login';
import { useResendOtp } from '../api/resend-otp';
import { useValidateOtp, type LoginResult } from '../api/validate-otp';

import { endsChallenge, loginErrorCode, loginErrorToDisplay } from './login-errors';

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

type Step =
  | { name: 'credentials' }
  | { name: 'code'; challenge: LoginChallenge }
  | { name: 'migrating'; result: LoginResult };

const OTP_LENGTH = 6;

/** The whole login: password step, one-time code step, and the migrating-member notice. */
export function LoginFlow({ variant, recaptchaSiteKey, isLoginMaintenance, onLoggedIn, onNavigate }: LoginFlowProps) {
  const [step, setStep] = useState<Step>({ name: 'credentials' });
  const [user, setUser] = useState('');
  const [isForeign, setIsForeign] = useState(false);
  const [password, setPassword] = useState('');
  /** An error carried back to the password step when the code can no longer be used. */
  const [carriedError, setCarriedError] = useState<DisplayError | null>(null);

  if (isLoginMaintenance) return <LoginMaintenance />;

  if (step.name === 'migrating') {
    return <MigratingNotice result={step.result} onContinue={() => onLoggedIn(step.result)} />;
  }

  if (step.name === 'code') {
    return (
      <OtpStep
        variant={variant}
        challenge={step.challenge}
        onBack={(error) => {
          setCarriedError(error);
          setStep({ name: 'credentials' });
        }}
        onConfirmed={(result) => {
          // LoginConfirmed: the member is stored, the password cleared.
          setPassword('');
          startSession({ name: result.name || null, hasMissions: result.hasMissions });
          track('login_exitoso', { metodo: variant, usuario_migrando: result.isUserMigrating });
          if (result.isUserMigrating) setStep({ name: 'migrating', result });
          else onLoggedIn(result);
        }}
      />
    );
  }

  return (
    <CredentialsStep
      variant={variant}
      recaptchaSiteKey={recaptchaSiteKey}
      user={user}
      onUserChange={setUser}
      isForeign={isForeign}
      onForeignChange={setIsForeign}
      password={password}
      onPasswordChange={setPassword}
      carriedError={carriedError}
      onNavigate={onNavigate}
      onValidated={(challenge) => {
        // userPasswordValidated: the password is not kept while the code is awaited.
        setPassword('');
        setCarriedError(null);
        setStep({ name: 'code', challenge });
      }}
    />
  );
}

function LoginMaintenance() {
  return (
    <div className="login-maintenance" role="status">
      <h2 className="login-step__title">Inicio de sesión en mantención</h2>
      <p>
        Estamos mejorando el inicio de sesión de Mi Club. Por ahora no es posible ingresar: vuelve a
        intentarlo en unos minutos.
      </p>
    </div>
  );
}

type CredentialsStepProps = {
  variant: LoginVariant;
  recaptchaSiteKey: string | null;
  user: string;
  onUserChange: (value: string) => void;
  isForeign: boolean;
  onForeignChange: (value: boolean) => void;
  password: string;
  onPasswordChange: (value: string) => void;
  carriedError: DisplayError | null;
  onValidated: (challenge: LoginChallenge) => void;
  onNavigate?: () => void;
};

function CredentialsStep(props: CredentialsStepProps) {
  const { variant, recaptchaSiteKey, user, isForeign, password, carriedError, onValidated, onNavigate } = props;
  const loginMutation = useLogin();
  const [userError, setUserError] = useState<string | null>(null);
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [showPassword, setShowPassword] = useState(false);

  const serverError = loginMutation.isError ? loginErrorToDisplay(loginMutation.error) : carriedError;

  function validate(): boolean {
    const nextUserError = userFieldError(user, isForeign);
    const nextPasswordError = password ? null : 'Ingresa tu contraseña.';
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
        onSuccess: onValidated,
        onError: (error) =>
          track('login_fallido', { metodo: variant, paso: 'contrasena', codigo_error: loginErrorCode(error) }),
      },
    );
  }

  return (
    <form className="login-step" onSubmit={onSubmit} noValidate aria-label="Ingresa con tu RUT y contraseña">
      {serverError ? <Alert action={serverError.action}>{serverError.message}</Alert> : null}
      <UserField
        value={user}
        onChange={(value) => {
          props.onUserChange(value);
          if (userError) setUserError(null);
        }}
        isForeign={isForeign}
        onForeignChange={props.onForeignChange}
        error={userError}
      />
      <TextField
        label="Contraseña"
        name="password"
        type={showPassword ? 'text' : 'password'}
        autoComplete="current-password"
        value={password}
        onChange={(event) => {
          props.onPasswordChange(event.target.value);
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
            {showPassword ? 'Ocultar' : 'Mostrar'}
            <span className="visually-hidden"> contraseña</span>
          </button>
        }
      />
      <Button type="submit" isLoading={loginMutation.isPending} className="btn--block">
        Ingresar
      </Button>
      <div className="login-step__links">
        <SmartLink href="/recuperar-contrasena" onClick={onNavigate}>
          ¿Olvidaste tu contraseña?
        </SmartLink>
        <SmartLink href="/registro" onClick={onNavigate}>
          ¿No eres socio? Regístrate
        </SmartLink>
        <SmartLink href="/preguntas-login" onClick={onNavigate}>
          ¿Problemas para ingresar?
        </SmartLink>
      </div>
    </form>
  );
}

type OtpStepProps = {
  variant: LoginVariant;
  challenge: LoginChallenge;
  onConfirmed: (result: LoginResult) => void;
  onBack: (error: DisplayError | null) => void;
};

function OtpStep({ variant, challenge: initialChallenge, onConfirmed, onBack }: OtpStepProps) {
  const validateMutation = useValidateOtp();
  const resendMutation = useResendOtp();
  const [challenge, setChallenge] = useState(initialChallenge);
  const [resendAvailableAt, setResendAvailableAt] = useState(
    () => Date.now() + initialChallenge.resendAfterSeconds * 1000,
  );
  const [otp, setOtp] = useState('');
  const [otpError, setOtpError] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const cooldown = useSecondsUntil(resendAvailableAt);
  const titleId = useId();

  useEffect(() => {
    inputRef.current?.focus();
  }, []);

  const validateError = validateMutation.isError ? loginErrorToDisplay(validateMutation.error) : null;
  const resendError = resendMutation.isError ? loginErrorToDisplay(resendMutation.error) : null;
  // resendSuccess: shown until the member tries the new code.
  const resendSuccess = resendMutation.isSuccess && validateMutation.isIdle;
  const destination = challenge.destination || 'tu correo';
  const minutes = Math.max(1, Math.round(challenge.expiresInSeconds / 60));

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('validar_codigo', variant === 'modal' ? 'login_modal' : 'login');
    if (otp.length !== OTP_LENGTH) {
      setOtpError('Ingresa los 6 dígitos del código.');
      return;
    }
    resendMutation.reset();
    validateMutation.mutate(otp, {
      onSuccess: onConfirmed,
      onError: (error) => {
        track('login_fallido', { metodo: variant, paso: 'codigo', codigo_error: loginErrorCode(error) });
        if (endsChallenge(error)) onBack(loginErrorToDisplay(error));
        else setOtp('');
      },
    });
  }

  function onResend() {
    trackClick('reenviar_codigo', variant === 'modal' ? 'login_modal' : 'login');
    validateMutation.reset();
    resendMutation.mutate(undefined, {
      onSuccess: (next) => {
        setChallenge({ ...next, destination: next.destination || challenge.destination });
        setResendAvailableAt(Date.now() + next.resendAfterSeconds * 1000);
        setOtp('');
        inputRef.current?.focus();
      },
      onError: (error) => {
        if (endsChallenge(error)) onBack(loginErrorToDisplay(error));
      },
    });
  }

  return (
    <form className="login-step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId}>
        Ingresa tu código
      </h2>
      <p className="login-step__intro">
        Enviamos un código de 6 dígitos a <strong>{destination}</strong>. Vence en {minutes}{' '}
        {minutes === 1 ? 'minuto' : 'minutos'}.
      </p>
      {resendSuccess ? <Alert tone="success">Te enviamos un nuevo código a {destination}.</Alert> : null}
      {validateError ? <Alert action={validateError.action}>{validateError.message}</Alert> : null}
      {resendError ? <Alert action={resendError.action}>{resendError.message}</Alert> : null}
      <TextField
        ref={inputRef}
        label="Código de verificación"
        name="otp"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]*"
        maxLength={OTP_LENGTH}
        value={otp}
        onChange={(event) => {
          setOtp(event.target.value.replace(/\D/g, '').slice(0, OTP_LENGTH));
          if (otpError) setOtpError(null);
        }}
        error={otpError}
        hint="Revisa también tu carpeta de correo no deseado."
        required
      />
      <Button type="submit" isLoading={validateMutation.isPending} className="btn--block">
        Validar código
      </Button>
      <div className="login-step__secondary">
        <Button variant="link" onClick={onResend} disabled={cooldown > 0} isLoading={resendMutation.isPending}>
          Reenviar código
        </Button>
        {cooldown > 0 ? (
          <p className="login-step__cooldown">Podrás pedir un nuevo código en {cooldown} segundos.</p>
        ) : null}
        <Button
          variant="link"
          onClick={() => {
            trackClick('volver', variant === 'modal' ? 'login_modal' : 'login');
            onBack(null);
          }}
        >
          Volver
        </Button>
      </div>
    </form>
  );
}

function MigratingNotice({ result, onContinue }: { result: LoginResult; onContinue: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const titleId = useId();
  useEffect(() => {
    headingRef.current?.focus();
  }, []);
  return (
    <section className="login-step" aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        {result.name ? `¡Te damos la bienvenida al nuevo Mi Club, ${result.name}!` : '¡Te damos la bienvenida al nuevo Mi Club!'}
      </h2>
      <p>
        Trasladamos tu cuenta al nuevo Mi Club. Tu saldo y tus datos se mantienen; desde ahora, cada vez
        que ingreses te enviaremos un código a tu correo para proteger tu cuenta.
      </p>
      <Button onClick={onContinue} className="btn--block">
        Continuar
      </Button>
    </section>
  );
}
