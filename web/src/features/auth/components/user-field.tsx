import { useRef, type ChangeEvent } from 'react';

import { TextField } from '@/components/ui/text-field';
import { caretAfterFormat, formatRut } from '@/lib/rut';

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
