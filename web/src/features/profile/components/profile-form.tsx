import { useRef, useState, type FormEvent } from 'react';

import { PersonalDataFields, type PersonalDataKey, type PersonalDataValues } from '@/components/personal-data-fields';
import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { PasswordField } from '@/components/ui/password-field';
import { TextField } from '@/components/ui/text-field';
import { ApiError } from '@/lib/api-client';
import { chileToday } from '@/lib/dates';
import { capitalizeFirst, toDisplayError } from '@/lib/errors';
import { useGenders } from '@/lib/genders';

import type { MemberProfile } from '../api/get-profile';
import { useUpdateProfile, type ProfileUpdate, type ProfileUpdateRequest } from '../api/update-profile';
import { PROFILE_COPY as M } from '../messages';
import {
  EMAIL_MAX_LENGTH,
  MESSAGES,
  PROFILE_FIELDS,
  validateProfile,
  type ProfileErrors,
  type ProfileField,
} from '../utils/validation';

import '@/components/ui/field.css';

export const PROFILE_SAVED = M.saved;
const PROFILE_SAVE_FAILED = M.saveFailed;

/** The form's values from the member as the gateway holds them. */
export function profileValues(profile: MemberProfile): ProfileUpdate {
  return {
    email: profile.email ?? '',
    name: profile.name ?? '',
    last_name: profile.last_name ?? '',
    mother_surname: profile.mother_surname ?? '',
    phone_number: profile.phone_number ?? '',
    birth_date: profile.birth_date ?? '',
    gender_id: profile.gender_id ?? 0,
  };
}

function trimmed(values: ProfileUpdate): ProfileUpdate {
  return {
    ...values,
    email: values.email.trim(),
    name: values.name.trim(),
    last_name: values.last_name.trim(),
    mother_surname: values.mother_surname.trim(),
    phone_number: values.phone_number.trim(),
    birth_date: values.birth_date.trim(),
  };
}

/** The profile's field (and input name) behind each of the shared personal-data fields. */
const PROFILE_NAMES = {
  name: 'name',
  lastName: 'last_name',
  motherSurname: 'mother_surname',
  phoneNumber: 'phone_number',
  birthDate: 'birth_date',
  genderId: 'gender_id',
} as const satisfies Record<PersonalDataKey, ProfileField>;

function personalValues(values: ProfileUpdate): PersonalDataValues {
  return {
    name: values.name,
    lastName: values.last_name,
    motherSurname: values.mother_surname,
    phoneNumber: values.phone_number,
    birthDate: values.birth_date,
    genderId: values.gender_id,
  };
}

function personalErrors(errors: ProfileErrors): Partial<Record<PersonalDataKey, string>> {
  const mapped: Partial<Record<PersonalDataKey, string>> = {};
  for (const [key, field] of Object.entries(PROFILE_NAMES) as [PersonalDataKey, ProfileField][]) {
    if (errors[field]) mapped[key] = errors[field];
  }
  return mapped;
}

/** The form's inputs: the profile's fields and the step-up password of an email change. */
type FormField = ProfileField | 'currentPassword';
type FormErrors = ProfileErrors & { currentPassword?: string };

/** In the order the form shows them, for the focus on the first invalid one. */
const FORM_FIELDS: readonly FormField[] = ['email', 'currentPassword', ...PROFILE_FIELDS.slice(1)];

function isFormField(field: string | undefined): field is FormField {
  return FORM_FIELDS.includes(field as FormField);
}

/** Which input a refusal of the gateway belongs to: its `field`, or the one its code implies. */
function fieldOf(error: unknown): FormField | null {
  if (!(error instanceof ApiError) || !error.body) return null;
  const field = error.body.field;
  if (isFormField(field)) return field;
  if (error.code === 'ERR_WRONG_PASSWORD') return 'currentPassword';
  return null;
}

type Saved = { emailConfirmationSentTo: string | null };

/** The editable fields of Mis Datos, checked here as the gateway checks them (docs/api.md). */
export function ProfileForm({ profile }: { profile: MemberProfile }) {
  const genders = useGenders();
  const update = useUpdateProfile();
  const [values, setValues] = useState<ProfileUpdate>(() => profileValues(profile));
  const [errors, setErrors] = useState<FormErrors>({});
  const [saved, setSaved] = useState<Saved | null>(null);
  /**
   * Step-up: asked for in place as soon as the email differs from the member's current one (or
   * when the gateway asks for it), held in this component's state only and sent with that save.
   */
  const [currentPassword, setCurrentPassword] = useState('');
  const [passwordAsked, setPasswordAsked] = useState(false);
  const emailChanged = values.email.trim() !== (profile.email ?? '');
  const asksPassword = emailChanged || passwordAsked;
  const formRef = useRef<HTMLFormElement>(null);
  const today = chileToday();

  const generalError =
    update.isError && !fieldOf(update.error) ? toDisplayError(update.error, PROFILE_SAVE_FAILED) : null;

  function focusField(field: FormField) {
    const element = formRef.current?.elements.namedItem(field);
    if (element instanceof HTMLElement) element.focus();
  }

  function change<F extends ProfileField>(field: F, value: ProfileUpdate[F]) {
    setValues((previous) => ({ ...previous, [field]: value }));
    // Back to the current email: the password is no longer needed, nor kept.
    if (field === 'email' && String(value).trim() === (profile.email ?? '') && !passwordAsked) {
      setCurrentPassword('');
      if (errors.currentPassword) setErrors((previous) => ({ ...previous, currentPassword: undefined }));
    }
    setSaved(null);
    if (errors[field]) setErrors((previous) => ({ ...previous, [field]: undefined }));
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = trimmed(values);
    const found: FormErrors = validateProfile(body, genders.map((gender) => gender.id), today);
    if (asksPassword && !currentPassword) found.currentPassword = MESSAGES.currentPasswordForEmail;
    setErrors(found);
    setSaved(null);
    const firstInvalid = FORM_FIELDS.find((field) => found[field]);
    if (firstInvalid) {
      focusField(firstInvalid);
      return;
    }
    const request: ProfileUpdateRequest = asksPassword ? { ...body, currentPassword } : body;
    update.mutate(request, {
      onSuccess: (answer) => {
        setValues(profileValues(answer.user));
        setCurrentPassword('');
        setPasswordAsked(false);
        // The link goes to the address asked for, which may take effect only once confirmed.
        setSaved({ emailConfirmationSentTo: answer.emailConfirmationSent ? request.email : null });
      },
      onError: (error) => {
        const field = fieldOf(error);
        if (field && error instanceof ApiError && error.body) {
          setErrors({ [field]: capitalizeFirst(error.body.message) });
          if (field === 'currentPassword' && !asksPassword) {
            // The gateway asked for a password the form did not: the field appears, then focus.
            setPasswordAsked(true);
            requestAnimationFrame(() => focusField(field));
          } else {
            focusField(field);
          }
        }
      },
    });
  }

  const field = (name: ProfileField) => ({ name, error: errors[name] ?? null });

  return (
    <form ref={formRef} className="profile-form" onSubmit={onSubmit} noValidate aria-label={M.formLabel}>
      {saved ? (
        <Alert tone="success">
          {PROFILE_SAVED}
          {saved.emailConfirmationSentTo
            ? M.confirmationSentTo(saved.emailConfirmationSentTo)
            : null}
        </Alert>
      ) : null}
      {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
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
      {asksPassword ? (
        <PasswordField
          name="currentPassword"
          label={M.currentPassword}
          autoComplete="current-password"
          value={currentPassword}
          onChange={(event) => {
            setCurrentPassword(event.target.value);
            if (errors.currentPassword) setErrors((previous) => ({ ...previous, currentPassword: undefined }));
          }}
          hint={M.currentPasswordHint}
          error={errors.currentPassword ?? null}
          required
        />
      ) : null}
      <PersonalDataFields
        values={personalValues(values)}
        errors={personalErrors(errors)}
        // The value is the field's own type; TypeScript cannot follow the key through the name map.
        onChange={(key, value) => change(PROFILE_NAMES[key], value as never)}
        contactRequired={false}
        names={PROFILE_NAMES}
      />
      <Button type="submit" isLoading={update.isPending}>
        {M.saveChanges}
      </Button>
    </form>
  );
}
