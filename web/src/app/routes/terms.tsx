import { TermsPage } from '@/features/terms/components/terms-page';

/** /terminos-y-condiciones: public, for anyone, logged in or not. */
export default function TermsRoute() {
  return <TermsPage />;
}
