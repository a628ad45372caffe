import { useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router-dom';

import { EmailRestoration } from '@/features/profile/components/email-restoration';

import { performLogout } from '../logout';

/**
 * /restaurar-correo?token=…: no session needed. A restored email ended every session of the
 * member, so whatever this browser shows as logged in is cleared the way a logout clears it.
 */
export default function RestoreEmailRoute() {
  const [searchParams] = useSearchParams();
  const queryClient = useQueryClient();
  return (
    <EmailRestoration
      token={searchParams.get('token')?.trim() || null}
      onRestored={() => void performLogout(queryClient)}
    />
  );
}
