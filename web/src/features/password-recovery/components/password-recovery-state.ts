/**
 * The password recovery's steps as named transitions: the code is sent (codeSent), resent
 * (codeResent), the pending recovery ends or the member goes back (recoveryEnded), and the
 * password is changed (passwordReset). Every step after the first takes focus (`hasMoved`).
 */
import type { DisplayError } from '@/lib/errors';

import type { RecoveryChallenge } from '../api/request-recovery';

export type RecoveryStep =
  | { name: 'user' }
  /** `resendAvailableAt`: when a new code may be asked for (epoch ms); `resends`: how many so far. */
  | { name: 'code'; challenge: RecoveryChallenge; expiresInSeconds: number; resendAvailableAt: number; resends: number }
  | { name: 'done' };

export type RecoveryState = {
  step: RecoveryStep;
  /** The first step keeps the page's own focus (the h1 after navigation); later ones take it. */
  hasMoved: boolean;
  user: string;
  isForeign: boolean;
  /** Why the member is back at step 1 (the pending recovery ended). */
  carriedError: DisplayError | null;
};

/** The part of a gateway answer that times the code. */
type CodeTiming = Pick<RecoveryChallenge, 'expiresInSeconds' | 'resendAfterSeconds'>;

export type RecoveryEvent =
  | { type: 'userChanged'; user: string }
  | { type: 'documentKindChanged'; isForeign: boolean }
  | { type: 'codeSent'; challenge: RecoveryChallenge; at: number }
  | { type: 'codeResent'; timing: CodeTiming; at: number }
  | { type: 'recoveryEnded'; error: DisplayError | null }
  | { type: 'passwordReset' };

export const INITIAL_RECOVERY_STATE: RecoveryState = {
  step: { name: 'user' },
  hasMoved: false,
  user: '',
  isForeign: false,
  carriedError: null,
};

export function recoveryReducer(state: RecoveryState, event: RecoveryEvent): RecoveryState {
  switch (event.type) {
    case 'userChanged':
      return { ...state, user: event.user };
    case 'documentKindChanged':
      return { ...state, isForeign: event.isForeign };
    case 'codeSent': {
      const { challenge, at } = event;
      return {
        ...state,
        hasMoved: true,
        carriedError: null,
        step: {
          name: 'code',
          challenge,
          expiresInSeconds: challenge.expiresInSeconds,
          resendAvailableAt: at + challenge.resendAfterSeconds * 1000,
          resends: 0,
        },
      };
    }
    case 'codeResent': {
      if (state.step.name !== 'code') return state;
      const { timing, at } = event;
      return {
        ...state,
        step: {
          ...state.step,
          expiresInSeconds: timing.expiresInSeconds,
          resendAvailableAt: at + timing.resendAfterSeconds * 1000,
          resends: state.step.resends + 1,
        },
      };
    }
    case 'recoveryEnded':
      return { ...state, hasMoved: true, carriedError: event.error, step: { name: 'user' } };
    case 'passwordReset':
      return { ...state, hasMoved: true, step: { name: 'done' } };
  }
}
