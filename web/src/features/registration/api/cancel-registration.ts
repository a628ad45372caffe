/** DELETE /api/registration: "Cancelar registro"; the gateway forgets the flow and its cookie. */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

/** No body: the 204 is the answer. */
type RegistrationCancelled = ResponseOf<'/api/registration', 'delete'>;

export function cancelRegistration(): Promise<RegistrationCancelled> {
  return api.delete<RegistrationCancelled>('/api/registration');
}

export function getCancelRegistrationMutationOptions() {
  return { mutationKey: ['registration', 'cancel'] as const, mutationFn: cancelRegistration };
}

export function useCancelRegistration() {
  return useMutation(getCancelRegistrationMutationOptions());
}
