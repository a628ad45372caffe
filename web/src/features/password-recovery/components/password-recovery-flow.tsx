/**
 * The password recovery of /recuperar-contrasena: the RUT or document (step 1), then the mailed
 * code with the new password (step 2), then the notice to log in again. Focus moves to each
 * step's heading when the step changes, so screen readers announce where the member is.
 */
import { useEffect, useId, useRef, useState, type FormEvent, type RefObject } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { PasswordField } from '@/components/ui/password-field';
import { TextField } from '@/components/ui/text-field';
import { UserField, userFieldError } from '@/components/ui/user-field';
import { track, trackClick } from '@/lib/analytics';
import { useSecondsUntil } from '@/lib/countdown';
import type { DisplayError } from '@/lib/errors';
import { PASSWORD_MAX_LENGTH, PASSWORD_RULES } from '@/lib/password';

import { useRequestRecovery, type RecoveryChallenge } from '../api/request-recovery';
import { useResendRecoveryCode } from '../api/resend-recovery-code';
import { useResetPassword } from '../api/reset-password';
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

import '@/components/ui/button.css';
import '@/styles/login-card.css';

const SECTION = 'recuperar_contrasena';

export const RESET_DONE_MESSAGE = 'Tu contraseña fue cambiada. Inicia sesión con tu nueva contraseña.';

type Step = { name: 'user' } | { name: 'code'; challenge: RecoveryChallenge } | { name: 'done' };

type PasswordRecoveryFlowProps = {
  recaptchaSiteKey: string | null;
  /** The gateway changed the password and revoked every session: clear what the browser shows. */
  onPasswordReset: () => void;
};

export function PasswordRecoveryFlow({ recaptchaSiteKey, onPasswordReset }: PasswordRecoveryFlowProps) {
  const [step, setStep] = useState<Step>({ name: 'user' });
  // The first step keeps the page's own focus (the h1 after navigation); later ones take it.
  const [hasMoved, setHasMoved] = useState(false);
  const [user, setUser] = useState('');
  const [isForeign, setIsForeign] = useState(false);
  /** Why the member is back at step 1 (the pending recovery ended). */
  const [carriedError, setCarriedError] = useState<DisplayError | null>(null);

  function goTo(next: Step) {
    setHasMoved(true);
    setStep(next);
  }

  if (step.name === 'done') return <DoneStep focusHeading={hasMoved} />;

  if (step.name === 'code') {
    return (
      <CodeStep
        challenge={step.challenge}
        focusHeading={hasMoved}
        onBack={(error) => {
          setCarriedError(error);
          goTo({ name: 'user' });
        }}
        onReset={(resends) => {
          track('recuperar_contrasena_exitoso', { reenvios: resends });
          onPasswordReset();
          goTo({ name: 'done' });
        }}
      />
    );
  }

  return (
    <UserStep
      recaptchaSiteKey={recaptchaSiteKey}
      focusHeading={hasMoved}
      user={user}
      onUserChange={setUser}
      isForeign={isForeign}
      onForeignChange={setIsForeign}
      carriedError={carriedError}
      onRequested={(challenge) => {
        track('recuperar_contrasena_paso_1', { tipo_documento: isForeign ? 'extranjero' : 'rut' });
        setCarriedError(null);
        goTo({ name: 'code', challenge });
      }}
    />
  );
}

/** Focus on the step's heading once it is shown, when the step was reached from another one. */
function useHeadingFocus(ref: RefObject<HTMLHeadingElement | null>, enabled: boolean) {
  useEffect(() => {
    if (enabled) ref.current?.focus();
    // Only when the step appears.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}

type UserStepProps = {
  recaptchaSiteKey: string | null;
  focusHeading: boolean;
  user: string;
  onUserChange: (value: string) => void;
  isForeign: boolean;
  onForeignChange: (value: boolean) => void;
  carriedError: DisplayError | null;
  onRequested: (challenge: RecoveryChallenge) => void;
};

function UserStep(props: UserStepProps) {
  const { recaptchaSiteKey, focusHeading, user, isForeign, carriedError, onRequested } = props;
  const request = useRequestRecovery();
  const [userError, setUserError] = useState<string | null>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const titleId = useId();
  useHeadingFocus(headingRef, focusHeading);

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
        Paso 1 de 2: tu RUT o documento
      </h2>
      <p className="login-step__intro">
        Te enviaremos un código de 6 dígitos al correo electrónico registrado para que crees una nueva
        contraseña.
      </p>
      {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
      <UserField
        value={user}
        onChange={(value) => {
          props.onUserChange(value);
          if (userError) setUserError(null);
        }}
        isForeign={isForeign}
        onForeignChange={(value) => {
          props.onForeignChange(value);
          setUserError(null);
        }}
        error={userError}
      />
      <Button type="submit" isLoading={request.isPending} className="btn--block">
        Enviar código
      </Button>
      <div className="login-step__links">
        <Link to="/login">Volver a iniciar sesión</Link>
      </div>
    </form>
  );
}

type CodeStepProps = {
  challenge: RecoveryChallenge;
  focusHeading: boolean;
  onReset: (resends: number) => void;
  onBack: (error: DisplayError | null) => void;
};

function CodeStep({ challenge, focusHeading, onReset, onBack }: CodeStepProps) {
  const reset = useResetPassword();
  const resend = useResendRecoveryCode();
  const [code, setCode] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [errors, setErrors] = useState<ResetErrors>({});
  const [expiresInSeconds, setExpiresInSeconds] = useState(challenge.expiresInSeconds);
  const [resendAvailableAt, setResendAvailableAt] = useState(() => Date.now() + challenge.resendAfterSeconds * 1000);
  const [resends, setResends] = useState(0);
  const cooldown = useSecondsUntil(resendAvailableAt);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  useHeadingFocus(headingRef, focusHeading);

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
          onReset(resends);
        },
        onError: (error) => {
          if (endsRecovery(error)) {
            setNewPassword('');
            onBack(recoveryErrorToDisplay(error));
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
        setExpiresInSeconds(next.expiresInSeconds);
        setResendAvailableAt(Date.now() + next.resendAfterSeconds * 1000);
        setResends((count) => count + 1);
        setCode('');
        setErrors((previous) => ({ ...previous, code: undefined }));
        codeRef.current?.focus();
      },
      onError: (error) => {
        if (endsRecovery(error)) onBack(recoveryErrorToDisplay(error));
      },
    });
  }

  return (
    <form className="login-step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        Paso 2 de 2: código y nueva contraseña
      </h2>
      <Alert tone="info">{challenge.message}</Alert>
      <p className="login-step__intro">
        El código vence en {minutes} {minutes === 1 ? 'minuto' : 'minutos'}.
      </p>
      {resendSuccess ? (
        <Alert tone="success">Si el RUT o documento está registrado, enviamos un nuevo código.</Alert>
      ) : null}
      {resetError ? <Alert action={resetError.action}>{resetError.message}</Alert> : null}
      {resendError ? <Alert action={resendError.action}>{resendError.message}</Alert> : null}
      <TextField
        ref={codeRef}
        label="Código de verificación"
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9]*"
        maxLength={CODE_LENGTH}
        value={code}
        onChange={(event) => {
          setCode(event.target.value.replace(/\D/g, '').slice(0, CODE_LENGTH));
          if (errors.code) setErrors((previous) => ({ ...previous, code: undefined }));
        }}
        error={errors.code ?? null}
        hint="Revisa también tu carpeta de correo no deseado."
        required
      />
      <PasswordField
        ref={passwordRef}
        label="Nueva contraseña"
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
        Cambiar contraseña
      </Button>
      <div className="login-step__secondary">
        <Button variant="link" onClick={onResend} disabled={cooldown > 0} isLoading={resend.isPending}>
          Reenviar código
        </Button>
        {cooldown > 0 ? (
          <p className="login-step__cooldown">Podrás pedir un nuevo código en {cooldown} segundos.</p>
        ) : null}
        <Button
          variant="link"
          onClick={() => {
            trackClick('volver', SECTION);
            onBack(null);
          }}
        >
          Volver
        </Button>
      </div>
    </form>
  );
}

function DoneStep({ focusHeading }: { focusHeading: boolean }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const titleId = useId();
  useHeadingFocus(headingRef, focusHeading);
  return (
    <section className="login-step" aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        Contraseña cambiada
      </h2>
      <Alert tone="success">{RESET_DONE_MESSAGE}</Alert>
      <Link to="/login" className="btn btn--primary btn--block">
        Iniciar sesión
      </Link>
    </section>
  );
}
