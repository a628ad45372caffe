import type { ButtonHTMLAttributes } from 'react';

import { Spinner } from './spinner';

import './button.css';

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: 'primary' | 'secondary' | 'link';
  isLoading?: boolean;
};

/** A button that stays focusable while busy and says so to assistive technology. */
export function Button({ variant = 'primary', isLoading = false, className, children, disabled, type, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type ?? 'button'}
      className={['btn', `btn--${variant}`, className].filter(Boolean).join(' ')}
      disabled={disabled || isLoading}
      aria-busy={isLoading || undefined}
    >
      {isLoading ? <Spinner size="small" label={null} /> : null}
      <span>{children}</span>
    </button>
  );
}
