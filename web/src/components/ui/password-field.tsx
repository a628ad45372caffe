import { forwardRef, useState, type ComponentProps } from 'react';

import { TextField } from './text-field';

import './field.css';

type PasswordFieldProps = Omit<ComponentProps<typeof TextField>, 'type' | 'trailing'>;

/** A password input with a show/hide button whose name says what pressing it does. */
export const PasswordField = forwardRef<HTMLInputElement, PasswordFieldProps>(function PasswordField(props, ref) {
  const [visible, setVisible] = useState(false);
  return (
    <TextField
      {...props}
      ref={ref}
      type={visible ? 'text' : 'password'}
      spellCheck={false}
      autoCapitalize="none"
      trailing={
        <button
          type="button"
          className="field__toggle"
          // The name says what pressing does (so no aria-pressed as well); the visible word starts
          // it (WCAG 2.5.3) and the field's label says which password.
          aria-label={`${visible ? 'Ocultar' : 'Mostrar'} ${props.label.toLocaleLowerCase('es-CL')}`}
          onClick={() => setVisible((value) => !value)}
        >
          {visible ? 'Ocultar' : 'Mostrar'}
        </button>
      }
    />
  );
});
