/** POST /api/profile/email/resend: mails a new confirmation link to the unconfirmed email (204). */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';

export function resendEmailConfirmation(): Promise<void> {
  return api.post<void>('/api/profile/email/resend');
}

export function getResendEmailConfirmationMutationOptions() {
  return { mutationKey: ['resend-email-confirmation'] as const, mutationFn: resendEmailConfirmation };
}

export function useResendEmailConfirmation() {
  return useMutation(getResendEmailConfirmationMutationOptions());
}
