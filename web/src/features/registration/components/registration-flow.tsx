/**
 * The registration of /registro: the document (step 1), the personal data (step 2), the
 * password and terms (step 3), then the notice to verify the email. The gateway holds the flow
 * (cookie `mc_registration`), so a reload resumes at its step with what was entered; the forms
 * here only keep what is being typed. "Volver" moves between steps without calling the gateway.
 * The steps move by the events of registration-state.ts.
 */
import { useId, useReducer } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Spinner } from '@/components/ui/spinner';
import { track, trackClick } from '@/lib/analytics';
import { errorCodeOf, toDisplayError } from '@/lib/errors';
import { useFocusOnShow } from '@/lib/focus-on-show';

import { useCancelRegistration } from '../api/cancel-registration';
import { useRegistration, type RegistrationView } from '../api/get-registration';
import { REGISTRATION_COPY as M } from '../messages';
import { REGISTRATION_FAILED } from '../utils/registration-rules';

import { IdentityStep, SECTION } from './identity-step';
import { PasswordStep } from './password-step';
import { PersonalDataStep } from './personal-data-step';
import { initialRegistrationState, registrationReducer } from './registration-state';

import '@/components/ui/button.css';
import '@/styles/login-card.css';

export const REGISTRATION_DONE_TITLE = M.doneTitle;
export const REGISTRATION_CANCELLED = M.cancelled;

type RegistrationFlowProps = { recaptchaSiteKey: string | null };

/** Reads the flow in progress once, then hands it to the steps. */
export function RegistrationFlow({ recaptchaSiteKey }: RegistrationFlowProps) {
  const registration = useRegistration();
  if (registration.isPending) return <Spinner label={M.loading} />;
  // No flow (404) or no answer: the member starts at step 1; a new flow replaces any other.
  return <RegistrationSteps initial={registration.data ?? null} recaptchaSiteKey={recaptchaSiteKey} />;
}

function RegistrationSteps({
  initial,
  recaptchaSiteKey,
}: { initial: RegistrationView | null } & RegistrationFlowProps) {
  const [state, dispatch] = useReducer(registrationReducer, initial, initialRegistrationState);
  const { stage, hasMoved, identity, personal, carried, maskedEmail } = state;
  const cancel = useCancelRegistration();
  const documentKind = identity.kind === 'rut' ? 'rut' : 'extranjero';

  function failed(step: 1 | 2 | 3) {
    return (error: unknown) => track('registro_fallido', { paso: step, codigo_error: errorCodeOf(error) });
  }

  function expired(error: unknown) {
    dispatch({ type: 'registrationExpired', display: toDisplayError(error, REGISTRATION_FAILED) });
  }

  function onCancel() {
    trackClick('registro_cancelar', SECTION);
    // Whatever the answer, the member starts over: the next step 1 replaces any flow left behind.
    cancel.mutate(undefined, {
      onSettled: () => dispatch({ type: 'registrationCancelled', display: { message: REGISTRATION_CANCELLED } }),
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
          dispatch({ type: 'registrationCompleted', maskedEmail: masked });
        }}
        onExpired={expired}
        onFailed={failed(3)}
        onBack={() => dispatch({ type: 'steppedBack', to: 2 })}
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
        onValuesChange={(values) => dispatch({ type: 'personalDataChanged', personal: values })}
        focusHeading={hasMoved}
        onSaved={(view) => {
          track('registro_paso_2', { tipo_documento: documentKind });
          dispatch({ type: 'personalDataSaved', view });
        }}
        onExpired={expired}
        onFailed={failed(2)}
        onBack={() => dispatch({ type: 'steppedBack', to: 1 })}
        onCancel={onCancel}
        isCancelling={cancel.isPending}
      />
    );
  }

  return (
    <IdentityStep
      key="step-1"
      form={identity}
      onFormChange={(form) => dispatch({ type: 'identityChanged', identity: form })}
      focusHeading={hasMoved}
      carried={carried}
      recaptchaSiteKey={recaptchaSiteKey}
      onStarted={(view) => {
        track('registro_paso_1', { tipo_documento: documentKind });
        dispatch({ type: 'registrationStarted', view });
      }}
      onFailed={failed(1)}
    />
  );
}

function RegistrationDone({ maskedEmail, focusHeading }: { maskedEmail: string; focusHeading: boolean }) {
  const headingRef = useFocusOnShow<HTMLHeadingElement>(focusHeading);
  const titleId = useId();
  return (
    <section className="login-step registration-step" aria-labelledby={titleId}>
      <h2 className="login-step__title" id={titleId} ref={headingRef} tabIndex={-1}>
        {REGISTRATION_DONE_TITLE}
      </h2>
      <Alert tone="success">{M.doneText(maskedEmail)}</Alert>
      <Link to="/login" className="btn btn--primary btn--block">
        {M.logIn}
      </Link>
      <div className="login-step__links">
        <Link to="/registro/verificar-correo">{M.notReceived}</Link>
      </div>
    </section>
  );
}
