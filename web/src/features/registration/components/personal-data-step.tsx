/**
 * Step 2: who the member is and how to reach them. All fields are required but the mother's
 * surname; the gateway checks them again and its 400s land under their fields.
 */
import { useId, useRef, useState, type FormEvent } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { SelectField } from '@/components/ui/select-field';
import { TextField } from '@/components/ui/text-field';
import { trackClick } from '@/lib/analytics';
import { chileToday } from '@/lib/dates';
import { useGenders } from '@/lib/genders';
import { EMAIL_MAX_LENGTH, latestAdultBirthDate, NAME_MAX_LENGTH } from '@/lib/personal-data';

import type { RegistrationView } from '../api/get-registration';
import { useSavePersonalData } from '../api/save-personal-data';
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
      <p className="login-step__intro">Todos los datos son obligatorios, salvo el apellido materno.</p>
      {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
      <div className="form-grid">
        <TextField
          {...field('name')}
          label="Nombre"
          autoComplete="given-name"
          maxLength={NAME_MAX_LENGTH}
          value={values.name}
          onChange={(event) => change('name', event.target.value)}
          required
        />
        <TextField
          {...field('lastName')}
          label="Apellido paterno"
          autoComplete="family-name"
          maxLength={NAME_MAX_LENGTH}
          value={values.lastName}
          onChange={(event) => change('lastName', event.target.value)}
          required
        />
        <TextField
          {...field('motherSurname')}
          label="Apellido materno (opcional)"
          maxLength={NAME_MAX_LENGTH}
          value={values.motherSurname}
          onChange={(event) => change('motherSurname', event.target.value)}
        />
        <TextField
          {...field('phoneNumber')}
          label="Celular"
          type="tel"
          inputMode="tel"
          autoComplete="tel"
          placeholder="+56 9 1234 5678"
          value={values.phoneNumber}
          onChange={(event) => change('phoneNumber', event.target.value)}
          required
        />
        <TextField
          {...field('birthDate')}
          label="Fecha de nacimiento"
          type="date"
          autoComplete="bday"
          max={latestAdultBirthDate(today)}
          value={values.birthDate}
          onChange={(event) => change('birthDate', event.target.value)}
          required
        />
        <SelectField
          {...field('genderId')}
          label="Género"
          value={String(values.genderId)}
          onChange={(event) => change('genderId', Number(event.target.value))}
          required
        >
          <option value="0">Selecciona una opción</option>
          {genders.map((gender) => (
            <option key={gender.id} value={String(gender.id)}>
              {gender.label}
            </option>
          ))}
        </SelectField>
      </div>
      <TextField
        {...field('email')}
        label="Correo electrónico"
        type="email"
        autoComplete="email"
        maxLength={EMAIL_MAX_LENGTH}
        value={values.email}
        onChange={(event) => change('email', event.target.value)}
        hint="Te enviaremos un enlace a este correo para activar tu cuenta."
        required
      />
      <Button type="submit" isLoading={save.isPending} disabled={isCancelling} className="btn--block">
        Continuar
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
          Volver
        </Button>
        <Button variant="link" disabled={save.isPending} isLoading={isCancelling} onClick={onCancel}>
          Cancelar registro
        </Button>
      </div>
    </form>
  );
}
