import { forwardRef, type InputHTMLAttributes, type ReactNode } from 'react';

import { Field, type FieldFrameProps } from './field';

type TextFieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'id'> &
  FieldFrameProps & {
    /** Rendered inside the field's box, after the input (e.g. a show-password button). */
    trailing?: ReactNode;
  };

/** A labelled input whose hint and error are tied to it with aria-describedby. */
export const TextField = forwardRef<HTMLInputElement, TextFieldProps>(function TextField(
  { label, hint, error, trailing, className, ...inputProps },
  ref,
) {
  return (
    <Field label={label} hint={hint} error={error} className={className} trailing={trailing}>
      {(control) => <input {...inputProps} ref={ref} {...control} className="field__input" />}
    </Field>
  );
});
