/**
 * The registration of /registro: the document (step 1), the personal data (step 2), the
 * password and terms (step 3), then the notice to verify the email. The gateway holds the flow
 * (cookie `mc_registration`), so a reload resumes at its step with what was entered; the forms
 * here only keep what is being typed. "Volver" moves between steps without calling the gateway.
 */
import { useId, useRef, useState } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Spinner } from '@/components/ui/spinner';
import { track, trackClick } from '@/lib/analytics';
import { errorCodeOf, toDisplayError, type DisplayError } from '@/lib/errors';

import { useCancelRegistration } from '../api/cancel-registration';
import { useRegistration, type RegistrationView } from '../api/get-registration';
import {
  EMPTY_IDENTITY,
  EMPTY_PERSONAL_DATA,
  identityForm,
  personalDataForm,
  REGISTRATION_FAILED,
  type IdentityForm,
  type PersonalDataForm,
} from '../utils/registration-rules';

import { IdentityStep, SECTION } from './identity-step';
import { PasswordStep } from './password-step';
import { PersonalDataStep } from './personal-data-step';
import { useHeadingFocus } from './step-header';

import '@/components/ui/button.css';
import '@/styles/login-card.css';

export const REGISTRATION_DONE_TITLE = '¡Ya casi eres parte de Mi Club!';
export const REGISTRATION_CANCELLED = 'Cancelaste tu registro. Puedes comenzar de nuevo cuando quieras.';

export function registrationDoneText(maskedEmail: string): string {
  return (
    `Te enviamos un correo a ${maskedEmail} para verificar tu dirección. ` +
    'Ábrelo para activar tu cuenta y luego inicia sesión.'
  );
}

type Stage = 1 | 2 | 3 | 'done';
type Carried = { tone: 'error' | 'info'; display: DisplayError };

/** The step a view of the gateway stands at: 3 (password and terms), otherwise 2. */
function stageOf(view: RegistrationView): 2 | 3 {
  return view.step === 3 ? 3 : 2;
}

type RegistrationFlowProps = { recaptchaSiteKey: string | null };

/** Reads the flow in progress once, then hands it to the steps. */
export function RegistrationFlow({ recaptchaSiteKey }: RegistrationFlowProps) {
  const registration = useRegistration();
  if (registration.isPending) return <Spinner label="Cargando tu registro…" />;
  // No flow (404) or no answer: the member starts at step 1; a new flow replaces any other.
  return <RegistrationSteps initial={registration.data ?? null} recaptchaSiteKey={recaptchaSiteKey} />;
}

function RegistrationSteps({
  initial,
  recaptchaSiteKey,
}: { initial: RegistrationView | null } & RegistrationFlowProps) {
  const [stage, setStage] = useState<Stage>(initial ? stageOf(initial) : 1);
  // The first step shown keeps the page's own focus (the h1 after navigation); later ones take it.
  const [hasMoved, setHasMoved] = useState(false);
  const [identity, setIdentity] = useState<IdentityForm>(() =>
    initial?.identity ? identityForm(initial.identity) : EMPTY_IDENTITY,
  );
  const [personal, setPersonal] = useState<PersonalDataForm>(() =>
    initial?.personalData ? personalDataForm(initial.personalData) : EMPTY_PERSONAL_DATA,
  );
  const [carried, setCarried] = useState<Carried | null>(null);
  const [maskedEmail, setMaskedEmail] = useState('');
  const cancel = useCancelRegistration();
  const documentKind = identity.kind === 'rut' ? 'rut' : 'extranjero';

  function goTo(next: Stage) {
    setHasMoved(true);
    setStage(next);
  }

  function failed(step: 1 | 2 | 3) {
    return (error: unknown) => track('registro_fallido', { paso: step, codigo_error: errorCodeOf(error) });
  }

  function expired(error: unknown) {
    setCarried({ tone: 'error', display: toDisplayError(error, REGISTRATION_FAILED) });
    goTo(1);
  }

  function onCancel() {
    trackClick('registro_cancelar', SECTION);
    // Whatever the answer, the member starts over: the next step 1 replaces any flow left behind.
    cancel.mutate(undefined, {
      onSettled: () => {
        setIdentity(EMPTY_IDENTITY);
        setPersonal(EMPTY_PERSONAL_DATA);
        setCarried({ tone: 'info', display: { message: REGISTRATION_CANCELLED } });
        goTo(1);
      },
    });
  }

  if (stage === 'done') return <RegistrationDone maskedEmail={maskedEmail} focusHeading={hasMoved} />;

  if (stage === 3) {
    return (
      <PasswordStep
        key="step-3"
        focusHeading={hasMoved}
        onCompleted={(masked) => {
          track('registro_paso_3', { tipo_documento: documentKind });
          track('registro_exitoso', { tipo_documento: documentKind });
          setMaskedEmail(masked);
          setIdentity(EMPTY_IDENTITY);
          setPersonal(EMPTY_PERSONAL_DATA);
          goTo('done');
        }}
        onExpired={expired}
        onFailed={failed(3)}
        onBack={() => goTo(2)}
        onCancel={onCancel}
        isCancelling={cancel.isPending}
      />
    );
  }

  if (stage === 2) {
    return (
      <PersonalDataStep
        key="step-2"
        values={personal}
        onValuesChange={setPersonal}
        focusHeading={hasMoved}
        onSaved={(view) => {
          track('registro_paso_2', { tipo_documento: documentKind });
          if (view.personalData) setPersonal(personalDataForm(view.personalData));
          goTo(3);
        }}
        onExpired={expired}
        onFailed={failed(2)}
        onBack={() => goTo(1)}
        onCancel={onCancel}
        isCancelling={cancel.isPending}
      />
    );
  }

  return (
    <IdentityStep
      key="step-1"
      form={identity}
      onFormChange={setIdentity}
      focusHeading={hasMoved}
      carried={carried}
      recaptchaSiteKey={recaptchaSiteKey}
      onStarted={(view) => {
        track('registro_paso_1', { tipo_documento: documentKind });
        setCarried(null);
        // A new flow has no personal data yet: what was typed before stays in the form.
        if (view.personalData) setPersonal(personalDataForm(view.personalData));
        goTo(stageOf(view));
      }}
      onFailed={failed(1)}
    />
  );
}

function RegistrationDone({ maskedEmail, focusHeading }: { maskedEmail: string; focusHeading: boolean }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  const titleId = useId();
  useHeadingFocus(headingRef, focusHeading);
  return (
    <section className="login-step registration-step" aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        {REGISTRATION_DONE_TITLE}
      </h2>
      <Alert tone="success">{registrationDoneText(maskedEmail)}</Alert>
      <Link to="/login" className="btn btn--primary btn--block">
        Iniciar sesión
      </Link>
    </section>
  );
}
