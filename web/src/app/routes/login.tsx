import { useEffect, useState } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';

import { LoginPageContent } from '@/features/auth/components/login-page-content';
import { usePortalContext } from '@/features/context/api/get-context';
import { safeRedirect } from '@/lib/login-modal';
import { clearLoginNotice, loginNoticeStore } from '@/lib/login-notice';
import { sessionStore } from '@/lib/session';

/** /login: a member already logged in goes straight to /mi-club. */
export default function LoginRoute() {
  const { context } = usePortalContext();
  const navigate = useNavigate();
  const [searchParams] = useSearchParams();
  // Read once: the session starts during this page's own flow and must not cut it short.
  const [wasLoggedIn] = useState(() => sessionStore.get().isLoggedIn);
  // A message left for this page (the farewell after unsubscribing), read once and then cleared.
  const [notice] = useState(() => loginNoticeStore.get());
  useEffect(() => clearLoginNotice(), []);
  const target = safeRedirect(searchParams.get('redirect')) ?? '/mi-club';

  if (wasLoggedIn) return <Navigate to={target} replace />;
  return (
    <LoginPageContent
      recaptchaSiteKey={context.recaptchaSiteKey}
      isLoginMaintenance={context.isLoginMaintenance}
      notice={notice}
      onLoggedIn={() => navigate(target, { replace: true })}
    />
  );
}
