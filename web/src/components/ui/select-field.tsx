import { forwardRef, type SelectHTMLAttributes } from 'react';

import { Field, type FieldFrameProps } from './field';

type SelectFieldProps = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'id'> & FieldFrameProps;

/** A labelled select whose hint and error are tied to it with aria-describedby, like TextField. */
export const SelectField = forwardRef<HTMLSelectElement, SelectFieldProps>(function SelectField(
  { label, hint, error, className, children, ...selectProps },
  ref,
) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(control) => (
        <select {...selectProps} ref={ref} {...control} className="field__input field__select">
          {children}
        </select>
      )}
    </Field>
  );
});
