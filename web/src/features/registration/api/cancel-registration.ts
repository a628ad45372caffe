/** DELETE /api/registration: "Cancelar registro"; the gateway forgets the flow and its cookie. */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export function cancelRegistration(): Promise<void> {
  return api.delete<void>('/api/registration');
}

export function getCancelRegistrationMutationOptions() {
  return { mutationKey: ['registration', 'cancel'] as const, mutationFn: cancelRegistration };
}

export function useCancelRegistration() {
  return useMutation(getCancelRegistrationMutationOptions());
}
