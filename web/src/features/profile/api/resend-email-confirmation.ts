/** POST /api/profile/email/resend: mails a new confirmation link to the unconfirmed email (204). */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

type EmailConfirmationResent = ResponseOf<'/api/profile/email/resend', 'post'>;

export function resendEmailConfirmation(): Promise<EmailConfirmationResent> {
  return api.post<EmailConfirmationResent>('/api/profile/email/resend');
}

export function getResendEmailConfirmationMutationOptions() {
  return { mutationKey: ['resend-email-confirmation'] as const, mutationFn: resendEmailConfirmation };
}

export function useResendEmailConfirmation() {
  return useMutation(getResendEmailConfirmationMutationOptions());
}
