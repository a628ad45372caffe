import { useId, useRef, useState, type FormEvent } from 'react';

import { Alert } from '@/components/ui/alert';
import { Button } from '@/components/ui/button';
import { Modal } from '@/components/ui/modal';
import { PasswordField } from '@/components/ui/password-field';
import { ApiError } from '@/lib/api-client';
import { capitalizeFirst, toDisplayError } from '@/lib/errors';
import { PASSWORD_RULES } from '@/lib/password';

import { useChangePassword } from '../api/change-password';
import { PROFILE_COPY as M } from '../messages';
import { PASSWORD_MAX_LENGTH, validatePasswordChange, type PasswordErrors } from '../utils/validation';

import './password-change-form.css';

const CHANGE_FAILED = M.changeFailed;

type PasswordInput = keyof PasswordErrors;

/** Which field a 422 of the gateway belongs to: its `field`, or the one its code implies. */
function fieldOf(error: unknown): PasswordInput | null {
  if (!(error instanceof ApiError)) return null;
  const field = error.body?.field;
  if (field === 'currentPassword' || field === 'newPassword') return field;
  if (error.code === 'ERR_WRONG_PASSWORD') return 'currentPassword';
  if (error.code === 'ERR_WEAK_PASSWORD') return 'newPassword';
  return null;
}

type PasswordChangeFormProps = {
  /** The gateway changed the password and ended every session of the member. */
  onChanged: () => void;
  /** The member read the notice: log out (the spec's "to-logout"). */
  onLogout: () => void;
};

/** The password change of Mis Datos (shown while `changePasswordEnable` is on). */
export function PasswordChangeForm({ onChanged, onLogout }: PasswordChangeFormProps) {
  const change = useChangePassword();
  const [currentPassword, setCurrentPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [errors, setErrors] = useState<PasswordErrors>({});
  const [toLogout, setToLogout] = useState(false);
  const currentRef = useRef<HTMLInputElement>(null);
  const newRef = useRef<HTMLInputElement>(null);
  const titleId = useId();

  const generalError = change.isError && !fieldOf(change.error) ? toDisplayError(change.error, CHANGE_FAILED) : null;

  function focus(field: PasswordInput) {
    (field === 'currentPassword' ? currentRef : newRef).current?.focus();
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found = validatePasswordChange(currentPassword, newPassword);
    setErrors(found);
    const firstInvalid = (['currentPassword', 'newPassword'] as const).find((field) => found[field]);
    if (firstInvalid) {
      focus(firstInvalid);
      return;
    }
    change.mutate(
      { currentPassword, newPassword },
      {
        onSuccess: () => {
          // No password stays in memory once it is no longer needed.
          setCurrentPassword('');
          setNewPassword('');
          setToLogout(true);
          onChanged();
        },
        onError: (error) => {
          const field = fieldOf(error);
          if (field && error instanceof ApiError) {
            setErrors({ [field]: capitalizeFirst(error.body?.message ?? '') || CHANGE_FAILED });
            focus(field);
          }
        },
      },
    );
  }

  return (
    <section className="password-change" aria-labelledby={titleId}>
      <h3 className="password-change__title" id={titleId}>
        {M.changePassword}
      </h3>
      <form onSubmit={onSubmit} noValidate aria-labelledby={titleId}>
        {generalError ? <Alert action={generalError.action}>{generalError.message}</Alert> : null}
        <PasswordField
          ref={currentRef}
          label={M.currentPassword}
          name="currentPassword"
          autoComplete="current-password"
          value={currentPassword}
          onChange={(event) => {
            setCurrentPassword(event.target.value);
            if (errors.currentPassword) setErrors((previous) => ({ ...previous, currentPassword: undefined }));
          }}
          error={errors.currentPassword ?? null}
          required
        />
        <PasswordField
          ref={newRef}
          label={M.newPassword}
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
        <Button type="submit" isLoading={change.isPending}>
          {M.changePassword}
        </Button>
      </form>
      {toLogout ? (
        <Modal title={M.passwordChangedTitle} onClose={onLogout}>
          <p>{M.passwordChangedText}</p>
          <Button className="btn--block" onClick={onLogout}>
            {M.logIn}
          </Button>
        </Modal>
      ) : null}
    </section>
  );
}
