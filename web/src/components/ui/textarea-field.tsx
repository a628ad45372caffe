import { forwardRef, type TextareaHTMLAttributes } from 'react';

import { Field, type FieldFrameProps } from './field';

type TextareaFieldProps = Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, 'id'> & FieldFrameProps;

/** A labelled multi-line input whose hint and error are tied to it, like TextField. */
export const TextareaField = forwardRef<HTMLTextAreaElement, TextareaFieldProps>(function TextareaField(
  { label, hint, error, className, ...textareaProps },
  ref,
) {
  return (
    <Field label={label} hint={hint} error={error} className={className}>
      {(control) => <textarea {...textareaProps} ref={ref} {...control} className="field__input field__textarea" />}
    </Field>
  );
});
