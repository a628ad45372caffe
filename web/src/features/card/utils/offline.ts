/**
 * What the card needs from the browser to work at the till: whether it is online, a service worker
 * so the card's page opens without a network, and the member's large-type choice.
 */
import { useSyncExternalStore } from 'react';

import { readStoredFlag, writeStoredFlag } from '@/lib/stored-flag';

function subscribeOnline(onChange: () => void): () => void {
  window.addEventListener('online', onChange);
  window.addEventListener('offline', onChange);
  return () => {
    window.removeEventListener('online', onChange);
    window.removeEventListener('offline', onChange);
  };
}

/** False when the browser knows it has no network (true is only a hope: a request may still fail). */
export function useOnline(): boolean {
  return useSyncExternalStore(
    subscribeOnline,
    () => navigator.onLine,
    () => true,
  );
}

/**
 * Installs the portal's service worker (src/sw.ts): it keeps the app's files so the card opens
 * offline. Registered from the card only: a visitor who never opened it installs nothing, and the
 * /login bundle carries none of it. Production builds only (the dev server has no /sw.js).
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {
    // Without it the card still works online; nothing to tell the member.
  });
}

/** The large-type choice, a display preference (nothing personal), kept across visits. */
export const LARGE_TYPE_STORAGE_KEY = 'miclub:card-large-type';

export function readLargeType(): boolean {
  return readStoredFlag(LARGE_TYPE_STORAGE_KEY);
}

export function writeLargeType(on: boolean): void {
  writeStoredFlag(LARGE_TYPE_STORAGE_KEY, on);
}
