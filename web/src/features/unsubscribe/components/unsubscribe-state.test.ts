import { describe, expect, it } from 'vitest';

import { INITIAL_UNSUBSCRIBE_STATE, unsubscribeReducer, type UnsubscribeState } from './unsubscribe-state';

function typedIdentity(): UnsubscribeState {
  let state = unsubscribeReducer(INITIAL_UNSUBSCRIBE_STATE, { type: 'userChanged', user: '12.345.678-5' });
  state = unsubscribeReducer(state, { type: 'emailChanged', email: 'ana@correo.cl' });
  return unsubscribeReducer(state, { type: 'currentPasswordChanged', currentPassword: 'Secreta123' });
}

describe('unsubscribeReducer', () => {
  it('starts at the identity step keeping the panel focus', () => {
    expect(INITIAL_UNSUBSCRIBE_STATE.step).toEqual({ name: 'identity' });
    expect(INITIAL_UNSUBSCRIBE_STATE.hasMoved).toBe(false);
  });

  it('moves to the reason step keeping the password for the final request once the identity is confirmed', () => {
    const state = unsubscribeReducer(typedIdentity(), { type: 'identityConfirmed' });
    expect(state.step).toEqual({ name: 'reason' });
    expect(state.hasMoved).toBe(true);
    expect(state.currentPassword).toBe('Secreta123');
  });

  it('forgets the password of a member who already left and shows when they did', () => {
    const state = unsubscribeReducer(typedIdentity(), { type: 'alreadyUnsubscribed', unsubscribedAt: '2026-11-21T15:04:05Z' });
    expect(state.step).toEqual({ name: 'already', unsubscribedAt: '2026-11-21T15:04:05Z' });
    expect(state.currentPassword).toBe('');
  });

  it('goes back to the identity step with what no longer matched, keeping what was typed', () => {
    const atReason = unsubscribeReducer(typedIdentity(), { type: 'identityConfirmed' });
    const chosen = unsubscribeReducer(atReason, { type: 'reasonChosen', reasonId: 3 });
    const carried = { field: 'currentPassword' as const, message: 'La contraseña no es correcta.' };
    const state = unsubscribeReducer(chosen, { type: 'returnedToIdentity', carried });
    expect(state.step).toEqual({ name: 'identity' });
    expect(state.carried).toEqual(carried);
    expect(state.email).toBe('ana@correo.cl');
    expect(state.reasonId).toBe(3);
  });

  it('clears what was carried back once the identity is confirmed again', () => {
    const back = unsubscribeReducer(typedIdentity(), { type: 'returnedToIdentity', carried: { display: { message: 'x' } } });
    expect(unsubscribeReducer(back, { type: 'identityConfirmed' }).carried).toBeNull();
  });
});
