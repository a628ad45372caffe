/** A countdown for "ask again in N seconds" (the one-time-code resend cooldowns). */
import { useEffect, useState } from 'react';

/** Whole seconds left until `deadline` (epoch ms), ticking while above zero. */
export function useSecondsUntil(deadline: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => {
      const current = Date.now();
      setNow(current);
      if (current >= deadline) window.clearInterval(timer);
    }, 250);
    return () => window.clearInterval(timer);
  }, [deadline]);
  return Math.max(0, Math.ceil((deadline - now) / 1000));
}
