/**
 * The one-time code a member received by email (login and password recovery): digits only, cut
 * at the code's length, with the reminder to look in the spam folder.
 */
import { forwardRef } from 'react';

import { TextField } from './text-field';

type CodeFieldProps = {
  name: string;
  length: number;
  value: string;
  onChange: (digits: string) => void;
  error?: string | null;
};

export const CodeField = forwardRef<HTMLInputElement, CodeFieldProps>(function CodeField(
  { name, length, value, onChange, error },
  ref,
) {
  return (
    <TextField
      ref={ref}
      label="Código de verificación"
      name={name}
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]*"
      maxLength={length}
      value={value}
      onChange={(event) => onChange(event.target.value.replace(/\D/g, '').slice(0, length))}
      error={error}
      hint="Revisa también tu carpeta de correo no deseado."
      required
    />
  );
});
