/**
 * The registration's steps as named transitions: the flow starts on the gateway
 * (registrationStarted), step 2 is saved (personalDataSaved), the account is created
 * (registrationCompleted), the member steps back (steppedBack), the flow expires on the gateway
 * (registrationExpired) or is cancelled (registrationCancelled). What was typed is kept across
 * steps and dropped once the account exists or the member cancels.
 */
import type { DisplayError } from '@/lib/errors';

import type { RegistrationView } from '../api/get-registration';
import {
  EMPTY_IDENTITY,
  EMPTY_PERSONAL_DATA,
  identityForm,
  personalDataForm,
  type IdentityForm,
  type PersonalDataForm,
} from '../utils/registration-rules';

export type RegistrationStage = 1 | 2 | 3 | 'done';

/** Why the member is back at step 1: the flow expired (error) or was cancelled (info). */
export type Carried = { tone: 'error' | 'info'; display: DisplayError };

export type RegistrationState = {
  stage: RegistrationStage;
  /** The first step shown keeps the page's own focus (the h1 after navigation); later ones take it. */
  hasMoved: boolean;
  identity: IdentityForm;
  personal: PersonalDataForm;
  carried: Carried | null;
  /** Where the verification email went, for the closing notice. */
  maskedEmail: string;
};

export type RegistrationEvent =
  | { type: 'identityChanged'; identity: IdentityForm }
  | { type: 'personalDataChanged'; personal: PersonalDataForm }
  | { type: 'registrationStarted'; view: RegistrationView }
  | { type: 'personalDataSaved'; view: RegistrationView }
  | { type: 'registrationCompleted'; maskedEmail: string }
  | { type: 'steppedBack'; to: 1 | 2 }
  | { type: 'registrationExpired'; display: DisplayError }
  | { type: 'registrationCancelled'; display: DisplayError };

/** The step a view of the gateway stands at: 3 (password and terms), otherwise 2. */
function stageOf(view: RegistrationView): 2 | 3 {
  return view.step === 3 ? 3 : 2;
}

/** Where a reload lands: the gateway's flow in progress, or step 1 when there is none. */
export function initialRegistrationState(initial: RegistrationView | null): RegistrationState {
  return {
    stage: initial ? stageOf(initial) : 1,
    hasMoved: false,
    identity: initial?.identity ? identityForm(initial.identity) : EMPTY_IDENTITY,
    personal: initial?.personalData ? personalDataForm(initial.personalData) : EMPTY_PERSONAL_DATA,
    carried: null,
    maskedEmail: '',
  };
}

/** The personal data as the gateway now holds it; a new flow has none, so what was typed stays. */
function personalFrom(view: RegistrationView, typed: PersonalDataForm): PersonalDataForm {
  return view.personalData ? personalDataForm(view.personalData) : typed;
}

export function registrationReducer(state: RegistrationState, event: RegistrationEvent): RegistrationState {
  switch (event.type) {
    case 'identityChanged':
      return { ...state, identity: event.identity };
    case 'personalDataChanged':
      return { ...state, personal: event.personal };
    case 'registrationStarted':
      return {
        ...state,
        hasMoved: true,
        carried: null,
        personal: personalFrom(event.view, state.personal),
        stage: stageOf(event.view),
      };
    case 'personalDataSaved':
      return { ...state, hasMoved: true, personal: personalFrom(event.view, state.personal), stage: 3 };
    case 'registrationCompleted':
      return {
        ...state,
        hasMoved: true,
        maskedEmail: event.maskedEmail,
        identity: EMPTY_IDENTITY,
        personal: EMPTY_PERSONAL_DATA,
        stage: 'done',
      };
    case 'steppedBack':
      return { ...state, hasMoved: true, stage: event.to };
    case 'registrationExpired':
      return { ...state, hasMoved: true, carried: { tone: 'error', display: event.display }, stage: 1 };
    case 'registrationCancelled':
      return {
        ...state,
        hasMoved: true,
        identity: EMPTY_IDENTITY,
        personal: EMPTY_PERSONAL_DATA,
        carried: { tone: 'info', display: event.display },
        stage: 1,
      };
  }
}
