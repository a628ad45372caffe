/** POST /api/password-recovery/resend: a new code for the pending recovery (cookie `mc_reset`). */
import { useMutation } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { ResponseOf } from '@/lib/api-types';

export type RecoveryResend = ResponseOf<'/api/password-recovery/resend', 'post'>;

export function resendRecoveryCode(): Promise<RecoveryResend> {
  return api.post<RecoveryResend>('/api/password-recovery/resend');
}

export function getResendRecoveryCodeMutationOptions() {
  return { mutationKey: ['password-recovery', 'resend'] as const, mutationFn: resendRecoveryCode };
}

export function useResendRecoveryCode() {
  return useMutation(getResendRecoveryCodeMutationOptions());
}
