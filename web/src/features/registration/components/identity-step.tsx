/**
 * Step 1: the member's document. A Chilean gives the RUT (check digit verified here) and the ID
 * card's serial number; a foreigner gives the document type, its number and the issuing country.
 * Every submit starts a new flow on the gateway, replacing any earlier one.
 */
import { useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { SelectField } from '@/components/ui/select-field';
import { TextField } from '@/components/ui/text-field';
import { trackClick } from '@/lib/analytics';
import type { DisplayError } from '@/lib/errors';
import { caretAfterFormat, formatRut } from '@/lib/rut';

import type { RegistrationView } from '../api/get-registration';
import { useStartRegistration } from '../api/start-registration';
import { REGISTRATION_COPY as M } from '../messages';
import { countryOptions } from '../utils/countries';
import {
  IDENTITY_FIELDS,
  identityBody,
  registrationFailure,
  validateIdentity,
  type DocumentKind,
  type ForeignDocumentType,
  type IdentityErrors,
  type IdentityField,
  type IdentityForm,
} from '../utils/registration-rules';

import { StepHeader } from './step-header';

import '@/components/ui/field.css';
import '@/styles/login-card.css';

export const SECTION = 'registro';

type IdentityStepProps = {
  form: IdentityForm;
  onFormChange: (form: IdentityForm) => void;
  focusHeading: boolean;
  /** Why the member is (back) at step 1: the flow expired, or it was cancelled. */
  carried: { tone: 'error' | 'info'; display: DisplayError } | null;
  onStarted: (view: RegistrationView) => void;
  onFailed: (error: unknown) => void;
  /** The portal context's reCAPTCHA site key (null: no challenge, as in standalone). */
  recaptchaSiteKey: string | null;
};

export function IdentityStep({
  form,
  onFormChange,
  focusHeading,
  carried,
  onStarted,
  onFailed,
  recaptchaSiteKey,
}: IdentityStepProps) {
  const start = useStartRegistration();
  const [errors, setErrors] = useState<IdentityErrors>({});
  const formRef = useRef<HTMLFormElement>(null);
  const rutRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const kindName = useId();
  const countries = countryOptions();

  const failure = start.isError ? registrationFailure(start.error, IDENTITY_FIELDS) : null;
  const generalError = failure && failure.kind !== 'field' ? failure.display : null;

  function focusField(field: IdentityField) {
    const element = formRef.current?.elements.namedItem(field);
    if (element instanceof HTMLElement) element.focus();
  }

  function change(patch: Partial<IdentityForm>, clears: IdentityField[]) {
    onFormChange({ ...form, ...patch });
    if (clears.some((field) => errors[field])) {
      setErrors((previous) => {
        const next = { ...previous };
        for (const field of clears) delete next[field];
        return next;
      });
    }
  }

  function chooseKind(kind: DocumentKind) {
    onFormChange({ ...form, kind });
    setErrors({});
    start.reset();
  }

  function onRutChange(event: ChangeEvent<HTMLInputElement>) {
    const raw = event.target.value;
    const caret = event.target.selectionStart ?? raw.length;
    const formatted = formatRut(raw);
    change({ rut: formatted }, ['rut']);
    const nextCaret = caretAfterFormat(raw, caret, formatted);
    // Keep the caret where the member is typing, after React writes the formatted value.
    requestAnimationFrame(() => {
      const input = rutRef.current;
      if (input && document.activeElement === input) input.setSelectionRange(nextCaret, nextCaret);
    });
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    trackClick('registro_continuar_paso_1', SECTION);
    const found = validateIdentity(form);
    setErrors(found);
    const firstInvalid = IDENTITY_FIELDS.find((field) => found[field]);
    if (firstInvalid) {
      focusField(firstInvalid);
      return;
    }
    start.mutate({ identity: identityBody(form), recaptchaSiteKey }, {
      onSuccess: onStarted,
      onError: (error) => {
        onFailed(error);
        const next = registrationFailure(error, IDENTITY_FIELDS);
        if (next.kind === 'field') {
          setErrors({ [next.field]: next.message });
          focusField(next.field);
        }
      },
    });
  }

  const shownCarried = start.isIdle ? carried : null;

  return (
    <form ref={formRef} className="login-step registration-step" onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
      <StepHeader step={1} titleId={titleId} focusHeading={focusHeading} />
      {shownCarried ? (
        <Alert tone={shownCarried.tone} action={shownCarried.display.action}>
          {shownCarried.display.message}
        </Alert>
      ) : null}
      {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
      <fieldset className="choice">
        <legend className="field__label">{M.documentQuestion}</legend>
        <label className="choice__option">
          <input
            type="radio"
            name={kindName}
            value="rut"
            checked={form.kind === 'rut'}
            onChange={() => chooseKind('rut')}
          />
          <span>{M.chileanRut}</span>
        </label>
        <label className="choice__option">
          <input
            type="radio"
            name={kindName}
            value="foreign"
            checked={form.kind === 'foreign'}
            onChange={() => chooseKind('foreign')}
          />
          <span>{M.foreignDocument}</span>
        </label>
      </fieldset>
      {form.kind === 'rut' ? (
        <>
          <TextField
            ref={rutRef}
            label={M.rut}
            name="rut"
            value={form.rut}
            onChange={onRutChange}
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            placeholder="12.345.678-5"
            error={errors.rut ?? null}
            required
          />
          <TextField
            label={M.documentNumber}
            name="documentNumber"
            value={form.cardSerial}
            onChange={(event) =>
              change({ cardSerial: event.target.value.toUpperCase().replace(/[^0-9A.]/g, '').slice(0, 13) }, ['documentNumber'])
            }
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            placeholder="100.123.456"
            hint={M.cardSerialHint}
            error={errors.documentNumber ?? null}
            required
          />
        </>
      ) : (
        <>
          <SelectField
            label={M.documentType}
            name="documentType"
            value={form.foreignType}
            onChange={(event) => change({ foreignType: event.target.value as ForeignDocumentType | '' }, ['documentType'])}
            error={errors.documentType ?? null}
            required
          >
            <option value="">{M.chooseDocumentType}</option>
            <option value="PASSPORT">{M.passport}</option>
            <option value="NATIONAL_ID">{M.foreignNationalId}</option>
          </SelectField>
          <TextField
            label={M.documentNumber}
            name="documentNumber"
            value={form.foreignNumber}
            onChange={(event) =>
              change({ foreignNumber: event.target.value.toUpperCase().replace(/[^0-9A-Z.-]/g, '').slice(0, 24) }, [
                'documentNumber',
              ])
            }
            autoComplete="off"
            autoCapitalize="characters"
            spellCheck={false}
            hint={M.foreignNumberHint}
            error={errors.documentNumber ?? null}
            required
          />
          <SelectField
            label={M.issuingCountry}
            name="country"
            value={form.country}
            onChange={(event) => change({ country: event.target.value }, ['country'])}
            error={errors.country ?? null}
            required
          >
            <option value="">{M.chooseCountry}</option>
            {countries.map((country) => (
              <option key={country.code} value={country.code}>
                {country.name}
              </option>
            ))}
          </SelectField>
        </>
      )}
      <Button type="submit" isLoading={start.isPending} className="btn--block">
        {M.continue}
      </Button>
      <div className="login-step__links">
        <Link to="/login">{M.alreadyMember}</Link>
      </div>
    </form>
  );
}
