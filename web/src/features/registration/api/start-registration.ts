/**
 * POST /api/registration: step 1. Starts a new flow (replacing any earlier one of this browser)
 * for a RUT with the ID card's serial number, or a foreign document with its issuing country.
 * 201 answers the view at step 2.
 */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

import type { RegistrationIdentity, RegistrationView } from './get-registration';

export function startRegistration(identity: RegistrationIdentity): Promise<RegistrationView> {
  return api.post<RegistrationView>('/api/registration', identity);
}

export function getStartRegistrationMutationOptions() {
  return { mutationKey: ['registration', 'start'] as const, mutationFn: startRegistration };
}

export function useStartRegistration() {
  return useMutation(getStartRegistrationMutationOptions());
}
