import { usePortalContext } from '@/features/context/api/get-context';
import { VerificationEmailPage } from '@/features/registration/components/verification-email-page';

/** /registro/verificar-correo: the action link of ERR_EMAIL_NOT_VERIFIED; no session needed, reCAPTCHA as on login. */
export default function VerificationEmailRoute() {
  const { context } = usePortalContext();
  return <VerificationEmailPage recaptchaSiteKey={context.recaptchaSiteKey} />;
}
