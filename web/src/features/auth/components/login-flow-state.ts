/**
 * The login's steps as the spec's transitions (section 4): the password step succeeds
 * (userPasswordValidated), the code is resent (codeResent), the code can no longer be used or the
 * member goes back (challengeEnded), and the code is accepted (loginConfirmed), which shows the
 * migrating member's notice (isMigratingUser) or ends the flow.
 */
import type { DisplayError } from '@/lib/errors';

import type { LoginChallenge } from '../api/login';
import type { LoginResult } from '../api/validate-otp';

export type LoginStep =
  | { name: 'credentials' }
  /** `resendAvailableAt`: when a new code may be asked for (epoch ms). */
  | { name: 'code'; challenge: LoginChallenge; resendAvailableAt: number }
  | { name: 'migrating'; result: LoginResult };

export type LoginState = {
  step: LoginStep;
  user: string;
  isForeign: boolean;
  /** Held only until the password step succeeds, and never past the login. */
  password: string;
  /** Why the member is back at the password step (the code can no longer be used). */
  carriedError: DisplayError | null;
};

export type LoginEvent =
  | { type: 'userChanged'; user: string }
  | { type: 'documentKindChanged'; isForeign: boolean }
  | { type: 'passwordChanged'; password: string }
  | { type: 'userPasswordValidated'; challenge: LoginChallenge; at: number }
  | { type: 'codeResent'; challenge: LoginChallenge; at: number }
  | { type: 'challengeEnded'; error: DisplayError | null }
  | { type: 'loginConfirmed'; result: LoginResult };

export const INITIAL_LOGIN_STATE: LoginState = {
  step: { name: 'credentials' },
  user: '',
  isForeign: false,
  password: '',
  carriedError: null,
};

function codeStep(challenge: LoginChallenge, at: number): LoginStep {
  return { name: 'code', challenge, resendAvailableAt: at + challenge.resendAfterSeconds * 1000 };
}

export function loginReducer(state: LoginState, event: LoginEvent): LoginState {
  switch (event.type) {
    case 'userChanged':
      return { ...state, user: event.user };
    case 'documentKindChanged':
      return { ...state, isForeign: event.isForeign };
    case 'passwordChanged':
      return { ...state, password: event.password };
    case 'userPasswordValidated':
      // The password is not kept while the code is awaited.
      return { ...state, password: '', carriedError: null, step: codeStep(event.challenge, event.at) };
    case 'codeResent': {
      if (state.step.name !== 'code') return state;
      const previous = state.step.challenge;
      const challenge = { ...event.challenge, destination: event.challenge.destination || previous.destination };
      return { ...state, step: codeStep(challenge, event.at) };
    }
    case 'challengeEnded':
      return { ...state, carriedError: event.error, step: { name: 'credentials' } };
    case 'loginConfirmed':
      // LoginConfirmed: the password cleared; a migrating member reads the notice first.
      return {
        ...state,
        password: '',
        step: event.result.isUserMigrating ? { name: 'migrating', result: event.result } : state.step,
      };
  }
}
