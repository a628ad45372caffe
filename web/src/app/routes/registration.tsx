import { RegistrationPage } from '@/features/registration/components/registration-page';

/** /registro: the three-step registration; no session needed. */
export default function RegistrationRoute() {
  return <RegistrationPage />;
}
