/** /registro inside the site frame: the page heading and the registration steps. */
import { REGISTRATION_COPY as M } from '../messages';

import { RegistrationFlow } from './registration-flow';

import '@/styles/login-card.css';
import './registration-page.css';

export function RegistrationPage({ recaptchaSiteKey }: { recaptchaSiteKey: string | null }) {
  return (
    <div className="container page registration-page">
      <div className="login-card">
        <h1 className="login-card__title">{M.pageTitle}</h1>
        <p className="login-card__subtitle">{M.pageSubtitle}</p>
        <RegistrationFlow recaptchaSiteKey={recaptchaSiteKey} />
      </div>
    </div>
  );
}
