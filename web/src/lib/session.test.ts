import { describe, expect, it } from 'vitest';

import { endSession, restoreSession, SESSION_STORAGE_KEY, sessionStore, startSession } from './session';

describe('the session display state', () => {
  it('persists only the name and has_missions while logged in', () => {
    startSession({ name: 'Ana', hasMissions: true });
    expect(JSON.parse(window.localStorage.getItem(SESSION_STORAGE_KEY) ?? '{}')).toEqual({
      name: 'Ana',
      hasMissions: true,
    });
    expect(window.sessionStorage.length).toBe(0);
  });

  it('removes the persisted state on logout', () => {
    startSession({ name: 'Ana', hasMissions: true });
    endSession();
    expect(window.localStorage.getItem(SESSION_STORAGE_KEY)).toBeNull();
  });

  it('restores the name after a reload while the is-logged cookie is present', () => {
    startSession({ name: 'Ana', hasMissions: true });
    document.cookie = 'is-logged=true; Path=/';
    restoreSession();
    expect(sessionStore.get()).toEqual({ isLoggedIn: true, isConfirmed: false, name: 'Ana', hasMissions: true });
  });

  it('forgets the persisted state when the is-logged cookie is gone', () => {
    startSession({ name: 'Ana', hasMissions: true });
    restoreSession();
    expect(sessionStore.get().isLoggedIn).toBe(false);
    expect(window.localStorage.getItem(SESSION_STORAGE_KEY)).toBeNull();
  });
});
