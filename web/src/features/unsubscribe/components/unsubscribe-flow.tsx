/**
 * "Darme de baja de Mi Club", opened from Mis Datos: the member confirms who they are with the
 * document, the email and the current password (step 1: the document and email alone are shown
 * to whoever holds the session), says why they leave (step 2), and confirms in a modal that
 * explains what happens. The password is held in this flow's state only, for step 2's request,
 * and is never stored. After the gateway's confirmation the app resets to the logged-out state
 * and shows the farewell. The steps move by the events of unsubscribe-state.ts.
 */
import { useId, useReducer, useRef, useState, type Dispatch, type FormEvent } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Modal } from '@/components/ui/modal';
import { PasswordField } from '@/components/ui/password-field';
import { Spinner } from '@/components/ui/spinner';
import { TextField } from '@/components/ui/text-field';
import { TextareaField } from '@/components/ui/textarea-field';
import { UserField, userFieldError } from '@/components/ui/user-field';
import { track, trackClick } from '@/lib/analytics';
import { errorCodeOf } from '@/lib/errors';
import { useFocusOnShow } from '@/lib/focus-on-show';
import { EMAIL_MAX_LENGTH } from '@/lib/personal-data';

import { useUnsubscribeReasons } from '../api/get-unsubscribe-reasons';
import { useUnsubscribe } from '../api/unsubscribe';
import { useValidateUnsubscribe, type UnsubscribeIdentity } from '../api/validate-unsubscribe';
import { UNSUBSCRIBE_COPY as M } from '../messages';
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

import { INITIAL_UNSUBSCRIBE_STATE, unsubscribeReducer, type Carried, type UnsubscribeEvent } from './unsubscribe-state';
import '@/components/ui/field.css';
import '@/styles/panel.css';
import './unsubscribe-flow.css';

const SECTION = 'desuscripcion';

export const UNSUBSCRIBE_TITLE = M.title;
export const CONFIRM_TITLE = M.confirmTitle;

type UnsubscribeFlowProps = {
  /** Back to Mis Datos without unsubscribing. */
  onClose: () => void;
  /** The gateway confirmed: `farewell` is the text to show once the app is logged out. */
  onUnsubscribed: (farewell: string) => void;
};

export function UnsubscribeFlow({ onClose, onUnsubscribed }: UnsubscribeFlowProps) {
  const [state, dispatch] = useReducer(unsubscribeReducer, INITIAL_UNSUBSCRIBE_STATE);
  const { step, hasMoved } = state;
  const titleId = useId();

  let content;
  if (step.name === 'already') {
    content = <AlreadyUnsubscribed unsubscribedAt={step.unsubscribedAt} onClose={onClose} />;
  } else if (step.name === 'reason') {
    content = (
      <ReasonStep
        focusHeading={hasMoved}
        identity={{ user: state.user.trim(), email: state.email.trim(), currentPassword: state.currentPassword }}
        reasonId={state.reasonId}
        reasonText={state.reasonText}
        dispatch={dispatch}
        onUnsubscribed={onUnsubscribed}
      />
    );
  } else {
    content = (
      <IdentityStep
        focusHeading={hasMoved}
        user={state.user}
        isForeign={state.isForeign}
        email={state.email}
        currentPassword={state.currentPassword}
        carried={state.carried}
        dispatch={dispatch}
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

type IdentityStepProps = {
  focusHeading: boolean;
  user: string;
  isForeign: boolean;
  email: string;
  currentPassword: string;
  carried: Carried | null;
  dispatch: Dispatch<UnsubscribeEvent>;
  onClose: () => void;
};

function IdentityStep(props: IdentityStepProps) {
  const { focusHeading, user, isForeign, email, currentPassword, carried, dispatch, onClose } = props;
  const validate = useValidateUnsubscribe();
  const [errors, setErrors] = useState<IdentityErrors>(() =>
    carried && 'field' in carried ? { [carried.field]: carried.message } : {},
  );
  const headingRef = useFocusOnShow<HTMLHeadingElement>(focusHeading);
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
          dispatch(
            answer.alreadyUnsubscribed
              ? { type: 'alreadyUnsubscribed', unsubscribedAt: answer.unsubscribedAt ?? null }
              : { type: 'identityConfirmed' },
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
        {M.identityTitle}
      </h3>
      <p>{M.identityIntro}</p>
      {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
      <UserField
        value={user}
        onChange={(value) => {
          dispatch({ type: 'userChanged', user: value });
          if (errors.user) setErrors((previous) => ({ ...previous, user: undefined }));
        }}
        isForeign={isForeign}
        onForeignChange={(value) => {
          dispatch({ type: 'documentKindChanged', isForeign: value });
          setErrors((previous) => ({ ...previous, user: undefined }));
        }}
        error={errors.user ?? null}
      />
      <TextField
        ref={emailRef}
        label={M.email}
        name="email"
        type="email"
        autoComplete="email"
        maxLength={EMAIL_MAX_LENGTH}
        value={email}
        onChange={(event) => {
          dispatch({ type: 'emailChanged', email: event.target.value });
          if (errors.email) setErrors((previous) => ({ ...previous, email: undefined }));
        }}
        error={errors.email ?? null}
        required
      />
      <PasswordField
        ref={passwordRef}
        label={M.currentPassword}
        name="currentPassword"
        autoComplete="current-password"
        value={currentPassword}
        onChange={(event) => {
          dispatch({ type: 'currentPasswordChanged', currentPassword: event.target.value });
          if (errors.currentPassword) setErrors((previous) => ({ ...previous, currentPassword: undefined }));
        }}
        error={errors.currentPassword ?? null}
        required
      />
      <div className="unsubscribe__actions">
        <Button type="submit" isLoading={validate.isPending}>
          {M.continue}
        </Button>
        <Button variant="secondary" onClick={onClose} disabled={validate.isPending}>
          {M.cancel}
        </Button>
      </div>
    </form>
  );
}

function isIdentityField(field: string): field is IdentityField {
  return field === 'user' || field === 'email' || field === 'currentPassword';
}

function AlreadyUnsubscribed({ unsubscribedAt, onClose }: { unsubscribedAt: string | null; onClose: () => void }) {
  const headingRef = useFocusOnShow<HTMLHeadingElement>();
  return (
    <div className="unsubscribe__step">
      <h3 className="unsubscribe__title" ref={headingRef} tabIndex={-1}>
        {M.alreadyTitle}
      </h3>
      <Alert tone="info">{alreadyUnsubscribedText(unsubscribedAt)}</Alert>
      <Button variant="secondary" onClick={onClose}>
        {M.backToProfile}
      </Button>
    </div>
  );
}

type ReasonStepProps = {
  focusHeading: boolean;
  identity: UnsubscribeIdentity;
  reasonId: number | null;
  reasonText: string;
  dispatch: Dispatch<UnsubscribeEvent>;
  onUnsubscribed: (farewell: string) => void;
};

function ReasonStep(props: ReasonStepProps) {
  const { focusHeading, identity, reasonId, reasonText, dispatch, onUnsubscribed } = props;
  /** Back to step 1; with the reason when the identity or the password no longer matched. */
  const onBack = (carried: Carried | null) => dispatch({ type: 'returnedToIdentity', carried });
  const reasons = useUnsubscribeReasons();
  const confirm = useUnsubscribe();
  const [errors, setErrors] = useState<ReasonErrors>({});
  const [isModalOpen, setModalOpen] = useState(false);
  const headingRef = useFocusOnShow<HTMLHeadingElement>(focusHeading);
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
        {M.reasonTitle}
      </h3>
      {reasons.isPending ? <Spinner label={M.loadingReasons} /> : null}
      {reasons.isError ? (
        <>
          <Alert>{M.reasonsFailed}</Alert>
          <Button variant="secondary" onClick={() => void reasons.refetch()} isLoading={reasons.isFetching}>
            {M.retry}
          </Button>
        </>
      ) : null}
      {reasons.data ? (
        <>
          <fieldset
            className={`choice${errors.reasonId ? ' field--invalid' : ''}`}
            aria-describedby={errors.reasonId ? reasonErrorId : undefined}
          >
            <legend className="field__label">{M.reasonQuestion}</legend>
            {reasons.data.map((reason) => (
              <label className="choice__option" key={reason.id}>
                <input
                  type="radio"
                  name={groupName}
                  value={String(reason.id)}
                  checked={reasonId === reason.id}
                  onChange={() => {
                    dispatch({ type: 'reasonChosen', reasonId: reason.id });
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
            label={chosen?.requiresText ? M.reasonTextRequired : M.reasonTextOptional}
            name="reasonText"
            rows={4}
            // A few characters past the limit, so the over-long message can still be seen.
            maxLength={REASON_TEXT_MAX_LENGTH + 20}
            value={reasonText}
            onChange={(event) => {
              dispatch({ type: 'reasonTextChanged', reasonText: event.target.value });
              if (errors.reasonText) setErrors((previous) => ({ ...previous, reasonText: undefined }));
            }}
            hint={M.reasonTextHint(REASON_TEXT_MAX_LENGTH)}
            error={errors.reasonText ?? null}
            required={chosen?.requiresText ?? false}
          />
        </>
      ) : null}
      <div className="unsubscribe__actions">
        <Button type="submit" disabled={!reasons.data}>
          {M.continue}
        </Button>
        <Button
          variant="secondary"
          onClick={() => {
            trackClick('desuscripcion_volver', SECTION);
            onBack(null);
          }}
        >
          {M.back}
        </Button>
      </div>
      {isModalOpen ? (
        <Modal title={CONFIRM_TITLE} onClose={() => (confirm.isPending ? undefined : setModalOpen(false))}>
          <p>{M.ifYouLeave}</p>
          <ul className="unsubscribe__consequences">
            <li>{M.consequenceSessions}</li>
            <li>{M.consequenceData}</li>
            <li>{M.consequenceBalance}</li>
          </ul>
          <p>{M.comeBack}</p>
          {modalError ? <Alert action={modalError.action}>{modalError.message}</Alert> : null}
          <div className="terms-actions">
            {/* The safe choice first: it is where focus lands when the dialog opens. */}
            <Button variant="secondary" onClick={() => setModalOpen(false)} disabled={confirm.isPending}>
              {M.cancel}
            </Button>
            <Button onClick={onConfirm} isLoading={confirm.isPending}>
              {M.confirm}
            </Button>
          </div>
        </Modal>
      ) : null}
    </form>
  );
}
