import { formatDate } from '@/lib/format';

import type { Terms } from '../api/get-terms';
import { TERMS_COPY as M } from '../messages';
import { paragraphsOf } from '../utils/terms-state';

import './terms-document.css';

type TermsDocumentProps = { terms: Terms; headingLevel?: 2 | 3 };

/** The text of the terms in force: title, version and date, paragraphs. */
export function TermsDocument({ terms, headingLevel = 2 }: TermsDocumentProps) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const published = formatDate(terms.publishedAt);
  return (
    <article className="terms-document">
      <Heading className="terms-document__title">{terms.title}</Heading>
      <p className="terms-document__meta" data-testid="terms-version">
        {M.version}
        {terms.version}
        {published ? M.inForceSince(published) : null}
      </p>
      {paragraphsOf(terms.body).map((paragraph, index) => (
        <p key={index} className="terms-document__paragraph">
          {paragraph}
        </p>
      ))}
    </article>
  );
}
