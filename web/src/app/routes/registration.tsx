import { usePortalContext } from '@/features/context/api/get-context';
import { RegistrationPage } from '@/features/registration/components/registration-page';

/** /registro: the three-step registration; no session needed, reCAPTCHA as on login. */
export default function RegistrationRoute() {
  const { context } = usePortalContext();
  return <RegistrationPage recaptchaSiteKey={context.recaptchaSiteKey} />;
}
