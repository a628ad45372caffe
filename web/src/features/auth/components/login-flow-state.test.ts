import { describe, expect, it } from 'vitest';

import type { LoginChallenge } from '../api/login';

import { INITIAL_LOGIN_STATE, loginReducer, type LoginState } from './login-flow-state';

const challenge: LoginChallenge = { destination: 'a***@correo.cl', expiresInSeconds: 300, resendAfterSeconds: 30 };

function atCodeStep(): LoginState {
  const typed = loginReducer(INITIAL_LOGIN_STATE, { type: 'passwordChanged', password: 'Secreta123' });
  return loginReducer(typed, { type: 'userPasswordValidated', challenge, at: 1_000 });
}

describe('loginReducer', () => {
  it('forgets the password and waits for the code once the password is validated', () => {
    const state = atCodeStep();
    expect(state.password).toBe('');
    expect(state.step).toEqual({ name: 'code', challenge, resendAvailableAt: 31_000 });
  });

  it('restarts the cooldown on a resent code and keeps the known destination when the new one has none', () => {
    const state = loginReducer(atCodeStep(), {
      type: 'codeResent',
      challenge: { destination: '', expiresInSeconds: 600, resendAfterSeconds: 60 },
      at: 5_000,
    });
    expect(state.step).toEqual({
      name: 'code',
      challenge: { destination: 'a***@correo.cl', expiresInSeconds: 600, resendAfterSeconds: 60 },
      resendAvailableAt: 65_000,
    });
  });

  it('ignores a resent code that arrives after the code step was left', () => {
    const state = loginReducer(INITIAL_LOGIN_STATE, { type: 'codeResent', challenge, at: 0 });
    expect(state).toBe(INITIAL_LOGIN_STATE);
  });

  it('goes back to the password step with the reason when the challenge ends, keeping the user', () => {
    const withUser = loginReducer(INITIAL_LOGIN_STATE, { type: 'userChanged', user: '12.345.678-5' });
    const atCode = loginReducer(withUser, { type: 'userPasswordValidated', challenge, at: 0 });
    const state = loginReducer(atCode, { type: 'challengeEnded', error: { message: 'El código expiró.' } });
    expect(state.step).toEqual({ name: 'credentials' });
    expect(state.user).toBe('12.345.678-5');
    expect(state.carriedError).toEqual({ message: 'El código expiró.' });
  });

  it('clears the carried error once the password is validated again', () => {
    const back = loginReducer(atCodeStep(), { type: 'challengeEnded', error: { message: 'x' } });
    expect(loginReducer(back, { type: 'userPasswordValidated', challenge, at: 0 }).carriedError).toBeNull();
  });

  it('shows the migrating member the notice once the login is confirmed', () => {
    const result = { name: 'Ana', hasMissions: false, isUserMigrating: true };
    expect(loginReducer(atCodeStep(), { type: 'loginConfirmed', result }).step).toEqual({ name: 'migrating', result });
  });

  it('stays at the code step when a member who is not migrating is confirmed, the page moving on', () => {
    const result = { name: 'Ana', hasMissions: false, isUserMigrating: false };
    expect(loginReducer(atCodeStep(), { type: 'loginConfirmed', result }).step.name).toBe('code');
  });
});
