import { useNavigate } from 'react-router-dom';

import { Modal } from '@/components/ui/modal';
import { closeLoginModal, useLoginModal } from '@/lib/login-modal';

import { LOGIN_MESSAGES } from '../messages';

import { LoginFlow } from './login-flow';

type LoginModalProps = {
  recaptchaSiteKey: string | null;
  isLoginMaintenance: boolean;
};

/** The login in a dialog over the current page; goes to the redirect URL, if any, afterwards. */
export function LoginModal({ recaptchaSiteKey, isLoginMaintenance }: LoginModalProps) {
  const { isOpen, redirectUrl } = useLoginModal();
  const navigate = useNavigate();
  if (!isOpen) return null;
  return (
    <Modal title={LOGIN_MESSAGES.title} onClose={closeLoginModal}>
      <LoginFlow
        variant="modal"
        recaptchaSiteKey={recaptchaSiteKey}
        isLoginMaintenance={isLoginMaintenance}
        onNavigate={closeLoginModal}
        onLoggedIn={() => {
          closeLoginModal();
          if (redirectUrl) navigate(redirectUrl);
        }}
      />
    </Modal>
  );
}
