import { VerificationEmailPage } from '@/features/registration/components/verification-email-page';

/** /registro/verificar-correo: the action link of ERR_EMAIL_NOT_VERIFIED; no session needed. */
export default function VerificationEmailRoute() {
  return <VerificationEmailPage />;
}
