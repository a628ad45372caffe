/**
 * The actions under a one-time-code form (login and password recovery): ask for a new code once
 * the cooldown the gateway gave is over, counting it down meanwhile, or go back a step.
 */
import { useSecondsUntil } from '@/lib/countdown';
import { SHARED_MESSAGES } from '@/lib/messages';

import { Button } from './button';

import '@/styles/login-card.css';

type ResendCodeProps = {
  /** When a new code may be asked for (epoch ms). */
  availableAt: number;
  isResending: boolean;
  onResend: () => void;
  onBack: () => void;
};

export function ResendCode({ availableAt, isResending, onResend, onBack }: ResendCodeProps) {
  const cooldown = useSecondsUntil(availableAt);
  return (
    <div className="login-step__secondary">
      <Button variant="link" onClick={onResend} disabled={cooldown > 0} isLoading={isResending}>
        Reenviar código
      </Button>
      {cooldown > 0 ? (
        <p className="login-step__cooldown">Podrás pedir un nuevo código en {cooldown} segundos.</p>
      ) : null}
      <Button variant="link" onClick={onBack}>
        {SHARED_MESSAGES.back}
      </Button>
    </div>
  );
}
