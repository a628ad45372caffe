/**
 * A message for whoever lands on /login next, such as the farewell after unsubscribing: the
 * session is reset first (which sends the page to /login), so the text cannot travel in the
 * navigation itself. /login shows it and clears it once read.
 */
import { createStore, useStore } from './store';

export const loginNoticeStore = createStore<string | null>(null);

export function setLoginNotice(message: string): void {
  loginNoticeStore.set(message);
}

export function clearLoginNotice(): void {
  loginNoticeStore.set(null);
}

export function useLoginNotice(): string | null {
  return useStore(loginNoticeStore);
}
