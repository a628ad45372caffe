/** /recuperar-contrasena inside the site frame: the page heading and the recovery steps. */
import { PasswordRecoveryFlow } from './password-recovery-flow';

import '@/styles/login-card.css';

type PasswordRecoveryPageProps = {
  recaptchaSiteKey: string | null;
  onPasswordReset: () => void;
};

export function PasswordRecoveryPage({ recaptchaSiteKey, onPasswordReset }: PasswordRecoveryPageProps) {
  return (
    <div className="container page recovery-page">
      <div className="login-card">
        <h1 className="login-card__title">Recupera tu contraseña</h1>
        <p className="login-card__subtitle">Crea una nueva contraseña con un código que enviamos a tu correo.</p>
        <PasswordRecoveryFlow recaptchaSiteKey={recaptchaSiteKey} onPasswordReset={onPasswordReset} />
      </div>
    </div>
  );
}
