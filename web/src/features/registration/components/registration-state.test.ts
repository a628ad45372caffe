import { describe, expect, it } from 'vitest';

import type { RegistrationView } from '../api/get-registration';
import { EMPTY_IDENTITY, EMPTY_PERSONAL_DATA } from '../utils/registration-rules';

import { initialRegistrationState, registrationReducer, type RegistrationState } from './registration-state';

const TYPED = { ...EMPTY_PERSONAL_DATA, name: 'Nora', lastName: 'Pérez' };

function typed(): RegistrationState {
  const state = initialRegistrationState(null);
  const withIdentity = registrationReducer(state, {
    type: 'identityChanged',
    identity: { ...EMPTY_IDENTITY, rut: '12.345.678-5' },
  });
  return registrationReducer(withIdentity, { type: 'personalDataChanged', personal: TYPED });
}

describe('registrationReducer', () => {
  it('starts a member without a flow at step 1, keeping the page focus', () => {
    const state = initialRegistrationState(null);
    expect(state.stage).toBe(1);
    expect(state.hasMoved).toBe(false);
  });

  it('resumes a flow at the step the gateway holds', () => {
    expect(initialRegistrationState({ step: 3 } as RegistrationView).stage).toBe(3);
    expect(initialRegistrationState({ step: 2 } as RegistrationView).stage).toBe(2);
  });

  it('keeps what was typed at step 2 when a new flow starts without personal data', () => {
    const state = registrationReducer(typed(), { type: 'registrationStarted', view: { step: 2 } as RegistrationView });
    expect(state.stage).toBe(2);
    expect(state.hasMoved).toBe(true);
    expect(state.personal).toEqual(TYPED);
  });

  it('moves to step 3 once the personal data is saved', () => {
    const state = registrationReducer(typed(), { type: 'personalDataSaved', view: { step: 3 } as RegistrationView });
    expect(state.stage).toBe(3);
  });

  it('steps back without losing what was typed', () => {
    const state = registrationReducer(typed(), { type: 'steppedBack', to: 1 });
    expect(state.stage).toBe(1);
    expect(state.personal).toEqual(TYPED);
  });

  it('drops what was typed and remembers the masked email once the account is created', () => {
    const state = registrationReducer(typed(), { type: 'registrationCompleted', maskedEmail: 'n***@correo.cl' });
    expect(state.stage).toBe('done');
    expect(state.maskedEmail).toBe('n***@correo.cl');
    expect(state.identity).toEqual(EMPTY_IDENTITY);
    expect(state.personal).toEqual(EMPTY_PERSONAL_DATA);
  });

  it('sends the member back to step 1 with the error when the flow expired, keeping what was typed', () => {
    const state = registrationReducer(typed(), { type: 'registrationExpired', display: { message: 'Expiró.' } });
    expect(state.stage).toBe(1);
    expect(state.carried).toEqual({ tone: 'error', display: { message: 'Expiró.' } });
    expect(state.personal).toEqual(TYPED);
  });

  it('starts over with the notice when the member cancels', () => {
    const state = registrationReducer(typed(), { type: 'registrationCancelled', display: { message: 'Cancelaste.' } });
    expect(state.stage).toBe(1);
    expect(state.carried).toEqual({ tone: 'info', display: { message: 'Cancelaste.' } });
    expect(state.identity).toEqual(EMPTY_IDENTITY);
    expect(state.personal).toEqual(EMPTY_PERSONAL_DATA);
  });

  it('clears the carried notice once a new flow starts', () => {
    const back = registrationReducer(typed(), { type: 'registrationCancelled', display: { message: 'x' } });
    expect(registrationReducer(back, { type: 'registrationStarted', view: { step: 2 } as RegistrationView }).carried).toBeNull();
  });
});
