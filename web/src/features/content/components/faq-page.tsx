import { Link } from 'react-router-dom';

import { useFaqs, type FaqAudience } from '../api/get-faqs';
import { CONTENT_COPY as M } from '../messages';

import { ContentStates, Paragraphs } from './content-states';

import './content-page.css';
import './faq-page.css';

export const FAQ_TITLES: Record<FaqAudience, string> = {
  login: M.faqLoginTitle,
  general: M.faqGeneralTitle,
};

export const FAQS_EMPTY = M.faqsEmpty;
export const FAQS_FAILED = M.faqsFailed;

/**
 * /preguntas-login and /preguntas-frecuentes: an accordion of native details/summary, which
 * keyboards and screen readers already know how to open and close.
 */
export function FaqPage({ audience }: { audience: FaqAudience }) {
  const query = useFaqs(audience);
  return (
    <div className="container page content-page">
      <h1>{FAQ_TITLES[audience]}</h1>
      <section aria-label={FAQ_TITLES[audience]} aria-busy={query.isPending}>
        <ContentStates query={query} loadingLabel="Cargando preguntas…" empty={FAQS_EMPTY} failure={FAQS_FAILED}>
          {(faqs) => (
            <div className="faq-list">
              {faqs.map((faq) => (
                <details key={faq.id} className="faq">
                  <summary className="faq__question">{faq.question}</summary>
                  <div className="faq__answer">
                    <Paragraphs text={faq.answer} />
                  </div>
                </details>
              ))}
            </div>
          )}
        </ContentStates>
      </section>
      <p className="content-page__more">
        {audience === 'login' ? (
          <>
            {M.readyToLogIn}
            <Link to="/login">{M.logIn}</Link> ·{' '}
            <Link to="/preguntas-frecuentes">{M.allFaqs}</Link>
          </>
        ) : (
          <>
            {M.loginTrouble}
            <Link to="/preguntas-login">{M.loginHelp}</Link>
          </>
        )}
      </p>
    </div>
  );
}
