import { useQueryClient } from '@tanstack/react-query';

import { usePortalContext } from '@/features/context/api/get-context';
import { PasswordRecoveryPage } from '@/features/password-recovery/components/password-recovery-page';

import { performLogout } from '../logout';

/**
 * /recuperar-contrasena. A successful reset revoked every session of the member, so whatever
 * this browser shows as logged in is cleared the way a logout clears it.
 */
export default function PasswordRecoveryRoute() {
  const { context } = usePortalContext();
  const queryClient = useQueryClient();
  return (
    <PasswordRecoveryPage
      recaptchaSiteKey={context.recaptchaSiteKey}
      onPasswordReset={() => void performLogout(queryClient)}
    />
  );
}
