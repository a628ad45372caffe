/**
 * A yes/no kept in localStorage across visits, for what tells nobody who the member is (the
 * has-missions flag, the card's large type): "true" while on, absent otherwise. Storage can be
 * unavailable (private mode, quota): reading says no, writing changes nothing, and the portal
 * works without it.
 */

export function readStoredFlag(key: string): boolean {
  try {
    return window.localStorage.getItem(key) === 'true';
  } catch {
    return false;
  }
}

export function writeStoredFlag(key: string, on: boolean): void {
  try {
    if (on) window.localStorage.setItem(key, 'true');
    else window.localStorage.removeItem(key);
  } catch {
    // No storage: the flag lasts this visit.
  }
}
