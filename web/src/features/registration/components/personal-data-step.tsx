/**
 * Step 2: who the member is and how to reach them. All fields are required but the mother's
 * surname; the gateway checks them again and its 400s land under their fields.
 */
import { useId, useRef, useState, type FormEvent } from 'react';

import { PersonalDataFields } from '@/components/personal-data-fields';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { TextField } from '@/components/ui/text-field';
import { trackClick } from '@/lib/analytics';
import { chileToday } from '@/lib/dates';
import { useGenders } from '@/lib/genders';
import { EMAIL_MAX_LENGTH } from '@/lib/personal-data';

import type { RegistrationView } from '../api/get-registration';
import { useSavePersonalData } from '../api/save-personal-data';
import { REGISTRATION_COPY as M } from '../messages';
import {
  PERSONAL_FIELDS,
  personalDataBody,
  registrationFailure,
  validatePersonalData,
  type PersonalDataForm,
  type PersonalErrors,
  type PersonalField,
} from '../utils/registration-rules';

import { SECTION } from './identity-step';
import { StepHeader } from './step-header';

import '@/components/ui/field.css';
import '@/styles/login-card.css';

type PersonalDataStepProps = {
  values: PersonalDataForm;
  onValuesChange: (values: PersonalDataForm) => void;
  focusHeading: boolean;
  onSaved: (view: RegistrationView) => void;
  onExpired: (error: unknown) => void;
  onFailed: (error: unknown) => void;
  onBack: () => void;
  onCancel: () => void;
  isCancelling: boolean;
};

export function PersonalDataStep(props: PersonalDataStepProps) {
  const { values, onValuesChange, focusHeading, onSaved, onExpired, onFailed, onBack, onCancel, isCancelling } = props;
  const genders = useGenders();
  const save = useSavePersonalData();
  const [errors, setErrors] = useState<PersonalErrors>({});
  const formRef = useRef<HTMLFormElement>(null);
  const titleId = useId();
  const today = chileToday();

  const failure = save.isError ? registrationFailure(save.error, PERSONAL_FIELDS) : null;
  const generalError = failure && failure.kind === 'general' ? failure.display : null;

  function focusField(field: PersonalField) {
    const element = formRef.current?.elements.namedItem(field);
    if (element instanceof HTMLElement) element.focus();
  }

  function change<F extends PersonalField>(field: F, value: PersonalDataForm[F]) {
    onValuesChange({ ...values, [field]: value });
    if (errors[field]) setErrors((previous) => ({ ...previous, [field]: undefined }));
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('registro_continuar_paso_2', SECTION);
    const found = validatePersonalData(values, genders.map((gender) => gender.id), today);
    setErrors(found);
    const firstInvalid = PERSONAL_FIELDS.find((field) => found[field]);
    if (firstInvalid) {
      focusField(firstInvalid);
      return;
    }
    save.mutate(personalDataBody(values), {
      onSuccess: onSaved,
      onError: (error) => {
        onFailed(error);
        const next = registrationFailure(error, PERSONAL_FIELDS);
        if (next.kind === 'expired') onExpired(error);
        else if (next.kind === 'field') {
          setErrors({ [next.field]: next.message });
          focusField(next.field);
        }
      },
    });
  }

  const field = (name: PersonalField) => ({ name, error: errors[name] ?? null });
  const busy = save.isPending || isCancelling;

  return (
    <form ref={formRef} className="login-step registration-step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <StepHeader step={2} titleId={titleId} focusHeading={focusHeading} />
      <p className="login-step__intro">{M.personalIntro}</p>
      {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
      <PersonalDataFields
        values={values}
        errors={errors}
        onChange={(key, value) => change(key, value as PersonalDataForm[typeof key])}
        contactRequired
      />
      <TextField
        {...field('email')}
        label={M.email}
        type="email"
        autoComplete="email"
        maxLength={EMAIL_MAX_LENGTH}
        value={values.email}
        onChange={(event) => change('email', event.target.value)}
        hint={M.emailHint}
        required
      />
      <Button type="submit" isLoading={save.isPending} disabled={isCancelling} className="btn--block">
        {M.continue}
      </Button>
      <div className="login-step__secondary">
        <Button
          variant="link"
          disabled={busy}
          onClick={() => {
            trackClick('registro_volver_paso_1', SECTION);
            onBack();
          }}
        >
          {M.back}
        </Button>
        <Button variant="link" disabled={save.isPending} isLoading={isCancelling} onClick={onCancel}>
          {M.cancelRegistration}
        </Button>
      </div>
    </form>
  );
}
