import { useSearchParams } from 'react-router-dom';

import { EmailConfirmation } from '@/features/profile/components/email-confirmation';

/** /confirmar-correo?token=…: the link of the email-confirmation mail; no session needed. */
export default function ConfirmEmailRoute() {
  const [searchParams] = useSearchParams();
  return <EmailConfirmation token={searchParams.get('token')?.trim() || null} />;
}
