/** /recuperar-contrasena inside the site frame: the page heading and the recovery steps. */
import { RECOVERY_MESSAGES as M } from '../messages';

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
        <h1 className="login-card__title">{M.pageTitle}</h1>
        <p className="login-card__subtitle">{M.pageSubtitle}</p>
        <PasswordRecoveryFlow recaptchaSiteKey={recaptchaSiteKey} onPasswordReset={onPasswordReset} />
      </div>
    </div>
  );
}
