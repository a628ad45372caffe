/** The terms part of the profile state (spec section 3) derived from the member's agreement. */
import type { TermsAgreement } from '../api/decide-terms';

export type TermsState = {
  terms_and_conditions_accepted: boolean;
  /** The opposite of accepted once the member decided; false while they never did. */
  terms_and_conditions_rejected: boolean;
  terms_and_conditions_last_update: string | null;
};

export function termsState(agreement: TermsAgreement | null | undefined): TermsState {
  const decided = agreement?.agreement === 'accepted' || agreement?.agreement === 'rejected';
  const accepted = agreement?.agreement === 'accepted';
  return {
    terms_and_conditions_accepted: accepted,
    terms_and_conditions_rejected: decided && !accepted,
    terms_and_conditions_last_update: decided ? (agreement?.event_date ?? null) : null,
  };
}

/** Paragraphs of the plain-text body: separated by blank lines, trimmed, none empty. */
export function paragraphsOf(body: string): string[] {
  return body
    .split(/\r?\n[ \t]*\r?\n/)
    .map((paragraph) => paragraph.trim())
    .filter(Boolean);
}
