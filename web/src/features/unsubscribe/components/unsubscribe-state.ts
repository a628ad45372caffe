/**
 * The unsubscribe's steps as named transitions: the identity is confirmed (identityConfirmed),
 * which leads to the reason step or, for a member who already left, to that notice
 * (alreadyUnsubscribed); the member goes back, or is sent back when the identity or the password
 * no longer matched at the end (returnedToIdentity). What is typed is kept across steps; the
 * password only while a step 2 may still need it.
 */
import type { DisplayError } from '@/lib/errors';

import type { IdentityField } from '../utils/unsubscribe-rules';

/** `unsubscribedAt` is null when the gateway answered no date for a member who already left. */
export type UnsubscribeStep = { name: 'identity' } | { name: 'reason' } | { name: 'already'; unsubscribedAt: string | null };

/** Why the member is back at step 1: a general message, or one for a field of step 1. */
export type Carried = { display: DisplayError } | { field: IdentityField; message: string };

export type UnsubscribeState = {
  step: UnsubscribeStep;
  /** The first step keeps the panel's focus; later ones take it. */
  hasMoved: boolean;
  user: string;
  isForeign: boolean;
  email: string;
  currentPassword: string;
  reasonId: number | null;
  reasonText: string;
  carried: Carried | null;
};

export type UnsubscribeEvent =
  | { type: 'userChanged'; user: string }
  | { type: 'documentKindChanged'; isForeign: boolean }
  | { type: 'emailChanged'; email: string }
  | { type: 'currentPasswordChanged'; currentPassword: string }
  | { type: 'reasonChosen'; reasonId: number }
  | { type: 'reasonTextChanged'; reasonText: string }
  | { type: 'identityConfirmed' }
  | { type: 'alreadyUnsubscribed'; unsubscribedAt: string | null }
  | { type: 'returnedToIdentity'; carried: Carried | null };

export const INITIAL_UNSUBSCRIBE_STATE: UnsubscribeState = {
  step: { name: 'identity' },
  hasMoved: false,
  user: '',
  isForeign: false,
  email: '',
  currentPassword: '',
  reasonId: null,
  reasonText: '',
  carried: null,
};

export function unsubscribeReducer(state: UnsubscribeState, event: UnsubscribeEvent): UnsubscribeState {
  switch (event.type) {
    case 'userChanged':
      return { ...state, user: event.user };
    case 'documentKindChanged':
      return { ...state, isForeign: event.isForeign };
    case 'emailChanged':
      return { ...state, email: event.email };
    case 'currentPasswordChanged':
      return { ...state, currentPassword: event.currentPassword };
    case 'reasonChosen':
      return { ...state, reasonId: event.reasonId };
    case 'reasonTextChanged':
      return { ...state, reasonText: event.reasonText };
    case 'identityConfirmed':
      return { ...state, hasMoved: true, carried: null, step: { name: 'reason' } };
    case 'alreadyUnsubscribed':
      // A member who already left has no step 2 to keep the password for.
      return {
        ...state,
        hasMoved: true,
        carried: null,
        currentPassword: '',
        step: { name: 'already', unsubscribedAt: event.unsubscribedAt },
      };
    case 'returnedToIdentity':
      return { ...state, hasMoved: true, carried: event.carried, step: { name: 'identity' } };
  }
}
