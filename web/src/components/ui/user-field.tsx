/**
 * Who the member is, as the login and the password recovery ask it: a Chilean RUT formatted as
 * it is typed, or, with the checkbox, a foreign document number kept as typed.
 */
import { useRef, type ChangeEvent } from 'react';

import { caretAfterFormat, formatRut, isValidRut } from '@/lib/rut';

import { TextField } from './text-field';

import './field.css';

/** The message to show under the field for `value`, or null when it may be sent. */
export function userFieldError(value: string, isForeign: boolean): string | null {
  if (!value.trim()) return isForeign ? 'Ingresa tu número de documento.' : 'Ingresa tu RUT.';
  if (!isForeign && !isValidRut(value)) return 'El RUT ingresado no es válido.';
  if (isForeign && value.replace(/[^0-9A-Z]/g, '').length < 5) {
    return 'El número de documento debe tener al menos 5 caracteres.';
  }
  return null;
}

type UserFieldProps = {
  value: string;
  onChange: (value: string) => void;
  isForeign: boolean;
  onForeignChange: (isForeign: boolean) => void;
  error?: string | null;
};

/** The member's RUT, formatted as it is typed, or a foreign document number kept as typed. */
export function UserField({ value, onChange, isForeign, onForeignChange, error }: UserFieldProps) {
  const inputRef = useRef<HTMLInputElement>(null);

  function handleChange(event: ChangeEvent<HTMLInputElement>) {
    const raw = event.target.value;
    if (isForeign) {
      onChange(raw.toUpperCase().replace(/[^0-9A-Z.-]/g, '').slice(0, 20));
      return;
    }
    const caret = event.target.selectionStart ?? raw.length;
    const formatted = formatRut(raw);
    onChange(formatted);
    const nextCaret = caretAfterFormat(raw, caret, formatted);
    // Keep the caret where the member is typing, after React writes the formatted value.
    requestAnimationFrame(() => {
      const input = inputRef.current;
      if (input && document.activeElement === input) input.setSelectionRange(nextCaret, nextCaret);
    });
  }

  return (
    <div className="user-field">
      <TextField
        ref={inputRef}
        label={isForeign ? 'Documento extranjero' : 'RUT'}
        name="user"
        value={value}
        onChange={handleChange}
        autoComplete="username"
        autoCapitalize="characters"
        spellCheck={false}
        placeholder={isForeign ? 'Número de documento' : '12.345.678-5'}
        error={error}
        required
      />
      <label className="checkbox">
        <input
          type="checkbox"
          checked={isForeign}
          onChange={(event) => {
            onForeignChange(event.target.checked);
            onChange('');
          }}
        />
        <span>No tengo RUT, ingresaré con documento extranjero</span>
      </label>
    </div>
  );
}
