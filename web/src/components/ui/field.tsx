/**
 * The frame every form control shares: the label, the hint and the error, tied to the control
 * with one id and aria-describedby, and the invalid state on both the frame and the control.
 */
import { useId, type ReactNode } from 'react';

import './field.css';

/** What a control passes on to its frame. */
export type FieldFrameProps = {
  label: string;
  hint?: ReactNode;
  error?: string | null;
};

/** The attributes that tie a control to its frame's label, hint and error. */
export type FieldControlProps = {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
};

type FieldProps = FieldFrameProps & {
  className?: string;
  /** Rendered inside the control's box, after it (e.g. a show-password button). */
  trailing?: ReactNode;
  children: (control: FieldControlProps) => ReactNode;
};

export function Field({ label, hint, error, className, trailing, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={['field', error ? 'field--invalid' : null, className].filter(Boolean).join(' ')}>
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <div className="field__control">
        {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
        {trailing}
      </div>
      {hint ? (
        <p className="field__hint" id={hintId}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p className="field__error" id={errorId} role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
