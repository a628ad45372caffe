import { describe, expect, it } from 'vitest';

import type { RecoveryChallenge } from '../api/request-recovery';

import { INITIAL_RECOVERY_STATE, recoveryReducer, type RecoveryState } from './password-recovery-state';

const challenge = { message: 'Si el RUT está registrado, enviamos un código.', expiresInSeconds: 600, resendAfterSeconds: 30 } as RecoveryChallenge;

function atCodeStep(): RecoveryState {
  return recoveryReducer(INITIAL_RECOVERY_STATE, { type: 'codeSent', challenge, at: 1_000 });
}

describe('recoveryReducer', () => {
  it('starts at step 1 keeping the page focus', () => {
    expect(INITIAL_RECOVERY_STATE.step).toEqual({ name: 'user' });
    expect(INITIAL_RECOVERY_STATE.hasMoved).toBe(false);
  });

  it('moves to the code step with the cooldown and no resends once the code is sent', () => {
    const state = atCodeStep();
    expect(state.hasMoved).toBe(true);
    expect(state.step).toEqual({ name: 'code', challenge, expiresInSeconds: 600, resendAvailableAt: 31_000, resends: 0 });
  });

  it('counts each resent code and restarts the cooldown and the expiry', () => {
    const once = recoveryReducer(atCodeStep(), {
      type: 'codeResent',
      timing: { expiresInSeconds: 300, resendAfterSeconds: 60 },
      at: 10_000,
    });
    const twice = recoveryReducer(once, { type: 'codeResent', timing: { expiresInSeconds: 300, resendAfterSeconds: 60 }, at: 80_000 });
    expect(twice.step).toMatchObject({ name: 'code', expiresInSeconds: 300, resendAvailableAt: 140_000, resends: 2 });
  });

  it('goes back to step 1 with the reason when the pending recovery ends, keeping the document', () => {
    const typed = recoveryReducer(INITIAL_RECOVERY_STATE, { type: 'userChanged', user: '12.345.678-5' });
    const atCode = recoveryReducer(typed, { type: 'codeSent', challenge, at: 0 });
    const state = recoveryReducer(atCode, { type: 'recoveryEnded', error: { message: 'El código expiró.' } });
    expect(state.step).toEqual({ name: 'user' });
    expect(state.user).toBe('12.345.678-5');
    expect(state.carriedError).toEqual({ message: 'El código expiró.' });
  });

  it('clears the carried reason when a new code is sent', () => {
    const back = recoveryReducer(atCodeStep(), { type: 'recoveryEnded', error: { message: 'x' } });
    expect(recoveryReducer(back, { type: 'codeSent', challenge, at: 0 }).carriedError).toBeNull();
  });

  it('shows the notice once the password is reset', () => {
    expect(recoveryReducer(atCodeStep(), { type: 'passwordReset' }).step).toEqual({ name: 'done' });
  });
});
