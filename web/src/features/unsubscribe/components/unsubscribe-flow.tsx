/**
 * "Darme de baja de Mi Club", opened from Mis Datos: the member confirms who they are with the
 * document, the email and the current password (step 1: the document and email alone are shown
 * to whoever holds the session), says why they leave (step 2), and confirms in a modal that
 * explains what happens. The password is held in this flow's state only, for step 2's request,
 * and is never stored. After the gateway's confirmation the app resets to the logged-out state
 * and shows the farewell.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Modal } from '@/components/ui/modal';
import { PasswordField } from '@/components/ui/password-field';
import { Spinner } from '@/components/ui/spinner';
import { TextField } from '@/components/ui/text-field';
import { TextareaField } from '@/components/ui/textarea-field';
import { UserField, userFieldError } from '@/components/ui/user-field';
import { track, trackClick } from '@/lib/analytics';
import { errorCodeOf, type DisplayError } from '@/lib/errors';
import { EMAIL_MAX_LENGTH } from '@/lib/personal-data';

import { useUnsubscribeReasons } from '../api/get-unsubscribe-reasons';
import { useUnsubscribe } from '../api/unsubscribe';
import { useValidateUnsubscribe, type UnsubscribeIdentity } from '../api/validate-unsubscribe';
import {
  alreadyUnsubscribedText,
  farewellText,
  REASON_TEXT_MAX_LENGTH,
  unsubscribeFailure,
  validateCurrentPassword,
  validateEmail,
  validateReason,
  type IdentityErrors,
  type IdentityField,
  type ReasonErrors,
} from '../utils/unsubscribe-rules';

import '@/components/ui/field.css';
import '@/styles/panel.css';
import './unsubscribe-flow.css';

const SECTION = 'desuscripcion';

export const UNSUBSCRIBE_TITLE = 'Darme de baja de Mi Club';
export const CONFIRM_TITLE = '¿Seguro que quieres darte de baja de Mi Club?';

type UnsubscribeFlowProps = {
  /** Back to Mis Datos without unsubscribing. */
  onClose: () => void;
  /** The gateway confirmed: `farewell` is the text to show once the app is logged out. */
  onUnsubscribed: (farewell: string) => void;
};

/** `unsubscribedAt` is null when the gateway answered no date for a member who already left. */
type Step = { name: 'identity' } | { name: 'reason' } | { name: 'already'; unsubscribedAt: string | null };

/** Why the member is back at step 1: a general message, or one for a field of step 1. */
type Carried = { display: DisplayError } | { field: IdentityField; message: string };

export function UnsubscribeFlow({ onClose, onUnsubscribed }: UnsubscribeFlowProps) {
  const [step, setStep] = useState<Step>({ name: 'identity' });
  const [hasMoved, setHasMoved] = useState(false);
  const [user, setUser] = useState('');
  const [isForeign, setIsForeign] = useState(false);
  const [email, setEmail] = useState('');
  const [currentPassword, setCurrentPassword] = useState('');
  const [reasonId, setReasonId] = useState<number | null>(null);
  const [reasonText, setReasonText] = useState('');
  /** Why the member is back at step 1 (the identity or the password no longer matched at the end). */
  const [carried, setCarried] = useState<Carried | null>(null);
  const titleId = useId();

  function goTo(next: Step) {
    setHasMoved(true);
    setStep(next);
  }

  let content;
  if (step.name === 'already') {
    content = <AlreadyUnsubscribed unsubscribedAt={step.unsubscribedAt} onClose={onClose} />;
  } else if (step.name === 'reason') {
    content = (
      <ReasonStep
        focusHeading={hasMoved}
        identity={{ user: user.trim(), email: email.trim(), currentPassword }}
        reasonId={reasonId}
        onReasonIdChange={setReasonId}
        reasonText={reasonText}
        onReasonTextChange={setReasonText}
        onBack={(reason) => {
          setCarried(reason);
          goTo({ name: 'identity' });
        }}
        onUnsubscribed={onUnsubscribed}
      />
    );
  } else {
    content = (
      <IdentityStep
        focusHeading={hasMoved}
        user={user}
        onUserChange={setUser}
        isForeign={isForeign}
        onForeignChange={setIsForeign}
        email={email}
        onEmailChange={setEmail}
        currentPassword={currentPassword}
        onCurrentPasswordChange={setCurrentPassword}
        carried={carried}
        onValidated={(answer) => {
          setCarried(null);
          // A member who already left has no step 2 to keep the password for.
          if (answer.name === 'already') setCurrentPassword('');
          goTo(answer);
        }}
        onClose={onClose}
      />
    );
  }

  return (
    <section className="panel unsubscribe" aria-labelledby={titleId}>
      <h2 className="panel__title" id={titleId}>
        {UNSUBSCRIBE_TITLE}
      </h2>
      {content}
    </section>
  );
}

/** Focus on the step's heading once shown, when reached from another step. */
function useStepHeading(enabled: boolean) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (enabled) ref.current?.focus();
    // Only when the step appears.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return ref;
}

type IdentityStepProps = {
  focusHeading: boolean;
  user: string;
  onUserChange: (value: string) => void;
  isForeign: boolean;
  onForeignChange: (value: boolean) => void;
  email: string;
  onEmailChange: (value: string) => void;
  currentPassword: string;
  onCurrentPasswordChange: (value: string) => void;
  carried: Carried | null;
  onValidated: (next: Step) => void;
  onClose: () => void;
};

function IdentityStep(props: IdentityStepProps) {
  const { focusHeading, user, isForeign, email, currentPassword, carried, onValidated, onClose } = props;
  const validate = useValidateUnsubscribe();
  const [errors, setErrors] = useState<IdentityErrors>(() =>
    carried && 'field' in carried ? { [carried.field]: carried.message } : {},
  );
  const headingRef = useStepHeading(focusHeading);
  const emailRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const carriedError = carried && 'display' in carried ? carried.display : null;
  const formRef = useRef<HTMLFormElement>(null);
  const titleId = useId();

  const failure = validate.isError ? unsubscribeFailure(validate.error) : null;
  const generalError = failure && failure.kind !== 'field' ? failure.display : validate.isIdle ? carriedError : null;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('desuscripcion_continuar_paso_1', SECTION);
    const found: IdentityErrors = {};
    const userError = userFieldError(user, isForeign);
    if (userError) found.user = userError;
    const emailError = validateEmail(email);
    if (emailError) found.email = emailError;
    const passwordError = validateCurrentPassword(currentPassword);
    if (passwordError) found.currentPassword = passwordError;
    setErrors(found);
    if (found.user) {
      formRef.current?.querySelector<HTMLInputElement>('input[name="user"]')?.focus();
      return;
    }
    if (found.email) {
      emailRef.current?.focus();
      return;
    }
    if (found.currentPassword) {
      passwordRef.current?.focus();
      return;
    }
    validate.mutate(
      { user: user.trim(), email: email.trim(), currentPassword },
      {
        onSuccess: (answer) => {
          track('desuscripción_paso_1', { ya_desuscrito: answer.alreadyUnsubscribed });
          onValidated(
            answer.alreadyUnsubscribed
              ? { name: 'already', unsubscribedAt: answer.unsubscribedAt ?? null }
              : { name: 'reason' },
          );
        },
        onError: (error) => {
          track('desuscripción_fallida', { paso: 1, codigo_error: errorCodeOf(error) });
          const next = unsubscribeFailure(error);
          if (next.kind === 'field' && isIdentityField(next.field)) {
            setErrors({ [next.field]: next.message });
            if (next.field === 'currentPassword') passwordRef.current?.focus();
          }
        },
      },
    );
  }

  return (
    <form ref={formRef} className="unsubscribe__step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <h3 className="unsubscribe__title" id={titleId} ref={headingRef} tabIndex={-1}>
        Paso 1 de 2: confirma que eres tú
      </h3>
      <p>Para darte de baja, ingresa el RUT o documento y el correo electrónico de tu cuenta, y tu contraseña actual.</p>
      {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
      <UserField
        value={user}
        onChange={(value) => {
          props.onUserChange(value);
          if (errors.user) setErrors((previous) => ({ ...previous, user: undefined }));
        }}
        isForeign={isForeign}
        onForeignChange={(value) => {
          props.onForeignChange(value);
          setErrors((previous) => ({ ...previous, user: undefined }));
        }}
        error={errors.user ?? null}
      />
      <TextField
        ref={emailRef}
        label="Correo electrónico"
        name="email"
        type="email"
        autoComplete="email"
        maxLength={EMAIL_MAX_LENGTH}
        value={email}
        onChange={(event) => {
          props.onEmailChange(event.target.value);
          if (errors.email) setErrors((previous) => ({ ...previous, email: undefined }));
        }}
        error={errors.email ?? null}
        required
      />
      <PasswordField
        ref={passwordRef}
        label="Contraseña actual"
        name="currentPassword"
        autoComplete="current-password"
        value={currentPassword}
        onChange={(event) => {
          props.onCurrentPasswordChange(event.target.value);
          if (errors.currentPassword) setErrors((previous) => ({ ...previous, currentPassword: undefined }));
        }}
        error={errors.currentPassword ?? null}
        required
      />
      <div className="unsubscribe__actions">
        <Button type="submit" isLoading={validate.isPending}>
          Continuar
        </Button>
        <Button variant="secondary" onClick={onClose} disabled={validate.isPending}>
          Cancelar
        </Button>
      </div>
    </form>
  );
}

function isIdentityField(field: string): field is IdentityField {
  return field === 'user' || field === 'email' || field === 'currentPassword';
}

function AlreadyUnsubscribed({ unsubscribedAt, onClose }: { unsubscribedAt: string | null; onClose: () => void }) {
  const headingRef = useStepHeading(true);
  return (
    <div className="unsubscribe__step">
      <h3 className="unsubscribe__title" ref={headingRef} tabIndex={-1}>
        Ya no eres parte de Mi Club
      </h3>
      <Alert tone="info">{alreadyUnsubscribedText(unsubscribedAt)}</Alert>
      <Button variant="secondary" onClick={onClose}>
        Volver a Mis Datos
      </Button>
    </div>
  );
}

type ReasonStepProps = {
  focusHeading: boolean;
  identity: UnsubscribeIdentity;
  reasonId: number | null;
  onReasonIdChange: (id: number) => void;
  reasonText: string;
  onReasonTextChange: (text: string) => void;
  /** Back to step 1; with the reason when the identity or the password no longer matched. */
  onBack: (reason: Carried | null) => void;
  onUnsubscribed: (farewell: string) => void;
};

function ReasonStep(props: ReasonStepProps) {
  const { focusHeading, identity, reasonId, reasonText, onBack, onUnsubscribed } = props;
  const reasons = useUnsubscribeReasons();
  const confirm = useUnsubscribe();
  const [errors, setErrors] = useState<ReasonErrors>({});
  const [isModalOpen, setModalOpen] = useState(false);
  const headingRef = useStepHeading(focusHeading);
  const formRef = useRef<HTMLFormElement>(null);
  const textRef = useRef<HTMLTextAreaElement>(null);
  const titleId = useId();
  const groupName = useId();
  const reasonErrorId = useId();

  const chosen = reasons.data?.find((reason) => reason.id === reasonId);
  const failure = confirm.isError ? unsubscribeFailure(confirm.error) : null;
  const modalError = failure && failure.kind === 'general' ? failure.display : null;

  function focusReasons() {
    formRef.current?.querySelector<HTMLInputElement>(`input[name="${groupName}"]`)?.focus();
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('desuscripcion_continuar_paso_2', SECTION);
    const found = validateReason(chosen, reasonText);
    setErrors(found);
    if (found.reasonId) {
      focusReasons();
      return;
    }
    if (found.reasonText) {
      textRef.current?.focus();
      return;
    }
    if (!chosen) return;
    confirm.reset();
    track('desuscripción_paso_2', { motivo: chosen.id });
    setModalOpen(true);
  }

  function onConfirm() {
    if (!chosen) return;
    trackClick('desuscripcion_confirmar', SECTION);
    confirm.mutate(
      { ...identity, reasonId: chosen.id, reasonText: reasonText.trim() },
      {
        onSuccess: (answer) => {
          track('desuscripción_confirmada', { motivo: chosen.id });
          onUnsubscribed(farewellText(answer.unsubscribedAt));
        },
        onError: (error) => {
          track('desuscripción_fallida', { paso: 2, codigo_error: errorCodeOf(error) });
          const next = unsubscribeFailure(error);
          if (next.kind === 'mismatch') {
            setModalOpen(false);
            onBack({ display: next.display });
          } else if (next.kind === 'field') {
            setModalOpen(false);
            if (next.field === 'reasonId' || next.field === 'reasonText') setErrors({ [next.field]: next.message });
            else onBack({ field: next.field, message: next.message });
          }
        },
      },
    );
  }

  return (
    <form ref={formRef} className="unsubscribe__step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <h3 className="unsubscribe__title" id={titleId} ref={headingRef} tabIndex={-1}>
        Paso 2 de 2: cuéntanos por qué te vas
      </h3>
      {reasons.isPending ? <Spinner label="Cargando los motivos…" /> : null}
      {reasons.isError ? (
        <>
          <Alert>No pudimos cargar los motivos. Intenta de nuevo más tarde.</Alert>
          <Button variant="secondary" onClick={() => void reasons.refetch()} isLoading={reasons.isFetching}>
            Reintentar
          </Button>
        </>
      ) : null}
      {reasons.data ? (
        <>
          <fieldset
            className={`choice${errors.reasonId ? ' field--invalid' : ''}`}
            aria-describedby={errors.reasonId ? reasonErrorId : undefined}
          >
            <legend className="field__label">¿Por qué quieres darte de baja?</legend>
            {reasons.data.map((reason) => (
              <label className="choice__option" key={reason.id}>
                <input
                  type="radio"
                  name={groupName}
                  value={String(reason.id)}
                  checked={reasonId === reason.id}
                  onChange={() => {
                    props.onReasonIdChange(reason.id);
                    setErrors({});
                  }}
                />
                <span>{reason.label}</span>
              </label>
            ))}
            {errors.reasonId ? (
              <p className="field__error" id={reasonErrorId} role="alert">
                {errors.reasonId}
              </p>
            ) : null}
          </fieldset>
          <TextareaField
            ref={textRef}
            label={chosen?.requiresText ? 'Cuéntanos el motivo' : 'Cuéntanos más (opcional)'}
            name="reasonText"
            rows={4}
            // A few characters past the limit, so the over-long message can still be seen.
            maxLength={REASON_TEXT_MAX_LENGTH + 20}
            value={reasonText}
            onChange={(event) => {
              props.onReasonTextChange(event.target.value);
              if (errors.reasonText) setErrors((previous) => ({ ...previous, reasonText: undefined }));
            }}
            hint={`Hasta ${REASON_TEXT_MAX_LENGTH} caracteres.`}
            error={errors.reasonText ?? null}
            required={chosen?.requiresText ?? false}
          />
        </>
      ) : null}
      <div className="unsubscribe__actions">
        <Button type="submit" disabled={!reasons.data}>
          Continuar
        </Button>
        <Button
          variant="secondary"
          onClick={() => {
            trackClick('desuscripcion_volver', SECTION);
            onBack(null);
          }}
        >
          Volver
        </Button>
      </div>
      {isModalOpen ? (
        <Modal title={CONFIRM_TITLE} onClose={() => (confirm.isPending ? undefined : setModalOpen(false))}>
          <p>Si te das de baja:</p>
          <ul className="unsubscribe__consequences">
            <li>Cerraremos tu sesión en todos tus dispositivos.</li>
            <li>
              Eliminaremos tus datos personales: nombre, apellidos, celular, fecha de nacimiento, género y correo
              electrónico.
            </li>
            <li>Tu saldo y tu historial de movimientos quedarán guardados, pero no podrás verlos ni usarlos hasta que vuelvas a registrarte.</li>
          </ul>
          <p>Si más adelante quieres volver, podrás registrarte de nuevo.</p>
          {modalError ? <Alert action={modalError.action}>{modalError.message}</Alert> : null}
          <div className="terms-actions">
            {/* The safe choice first: it is where focus lands when the dialog opens. */}
            <Button variant="secondary" onClick={() => setModalOpen(false)} disabled={confirm.isPending}>
              Cancelar
            </Button>
            <Button onClick={onConfirm} isLoading={confirm.isPending}>
              Sí, darme de baja
            </Button>
          </div>
        </Modal>
      ) : null}
    </form>
  );
}
