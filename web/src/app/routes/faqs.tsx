import { FaqPage } from '@/features/content/components/faq-page';

/** /preguntas-login (the login FAQs) and /preguntas-frecuentes (the footer's general FAQs). */
export default function FaqsRoute({ audience }: { audience: 'general' | 'login' }) {
  return <FaqPage audience={audience} />;
}
