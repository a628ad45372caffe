/**
 * POST /api/registration: step 1. Starts a new flow (replacing any earlier one of this browser)
 * for a RUT with the ID card's serial number, or a foreign document with its issuing country.
 * 201 answers the view at step 2. Protected by reCAPTCHA like login: the `recaptcha-token`
 * header, Google's token when the portal context gives a site key.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { BodyOf, ResponseOf } from '@/lib/api-types';
import { getRecaptchaToken } from '@/lib/recaptcha';

type RegistrationStarted = ResponseOf<'/api/registration', 'post'>;

/** The document to send, and the site key (client-only) that decides how the token is obtained. */
export type StartRegistrationInput = {
  identity: BodyOf<'/api/registration', 'post'>;
  recaptchaSiteKey: string | null;
};

export async function startRegistration({
  identity,
  recaptchaSiteKey,
}: StartRegistrationInput): Promise<RegistrationStarted> {
  const token = await getRecaptchaToken(recaptchaSiteKey, 'registration');
  return api.post<RegistrationStarted>('/api/registration', identity, { headers: { 'recaptcha-token': token } });
}

export function getStartRegistrationMutationOptions() {
  return { mutationKey: ['registration', 'start'] as const, mutationFn: startRegistration };
}

export function useStartRegistration() {
  return useMutation(getStartRegistrationMutationOptions());
}
