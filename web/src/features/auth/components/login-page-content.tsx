import { Link } from 'react-router-dom';

import { Alert } from '@/components/ui/alert';
import { Logo } from '@/components/ui/logo';

import type { LoginResult } from '../api/validate-otp';
import { LOGIN_MESSAGES as M } from '../messages';

import { LoginFlow } from './login-flow';

import '@/styles/brand.css';
import '@/styles/login-card.css';
import './login-page-content.css';

type LoginPageContentProps = {
  recaptchaSiteKey: string | null;
  isLoginMaintenance: boolean;
  onLoggedIn: (result: LoginResult) => void;
  /** A message for whoever lands here, such as the farewell after unsubscribing. */
  notice?: string | null;
};

/** /login: its own minimal frame, without the site header and footer (spec section 2). */
export function LoginPageContent({ recaptchaSiteKey, isLoginMaintenance, onLoggedIn, notice }: LoginPageContentProps) {
  return (
    <div className="login-page">
      <main className="login-page__main" id="contenido">
        <Link to="/mi-club" className="brand brand--on-light" aria-label="Mi Club, inicio">
          <Logo tone="on-dark" height={40} />
        </Link>
        <div className="login-card">
          <h1 className="login-card__title">{M.title}</h1>
          <p className="login-card__subtitle">{M.subtitle}</p>
          {notice ? <Alert tone="info">{notice}</Alert> : null}
          <LoginFlow
            variant="pagina"
            recaptchaSiteKey={recaptchaSiteKey}
            isLoginMaintenance={isLoginMaintenance}
            onLoggedIn={onLoggedIn}
          />
        </div>
        <p className="login-page__help">
          {M.questions}
          <Link to="/preguntas-login">{M.faqLink}</Link>
        </p>
      </main>
    </div>
  );
}
