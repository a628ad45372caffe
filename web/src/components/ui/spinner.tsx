import './spinner.css';

type SpinnerProps = { size?: 'small' | 'large'; label?: string | null };

/** A loading indicator; with a label it is announced politely. */
export function Spinner({ size = 'large', label = 'Cargando…' }: SpinnerProps) {
  return (
    <span className={`spinner spinner--${size}`} role={label ? 'status' : undefined}>
      <span className="spinner__circle" aria-hidden="true" />
      {label ? <span className="visually-hidden">{label}</span> : null}
    </span>
  );
}
