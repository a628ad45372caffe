/**
 * Keeps the gateway session alive while the member uses the portal. The access cookie is
 * short-lived and the refresh cookie long-lived (DESIGN.md, "auth"), so the session is renewed
 * before the access cookie expires: on load for a session restored from a reload (before any
 * member query, or shortly after them when the gateway's `session-fresh` cookie says the access
 * cookie still works), on a timer while the page is open, and when a tab comes back after a long
 * time hidden. A renewal answered 401 means the session is gone: the API client's 401 rule logs
 * the member out.
 * Renewals never overlap: the gateway revokes a refresh token that is used twice.
 */
import { focusManager } from '@tanstack/react-query';
import { useEffect } from 'react';

import { refreshSession } from '@/features/auth/api/refresh-session';
import { ApiError } from '@/lib/api-client';
import { confirmSession, sessionStore, useSession } from '@/lib/session';

/** Before the first renewal tells the real lifetime: safe for access lifetimes of 5 minutes or more. */
export const DEFAULT_RENEW_AFTER_MS = 4 * 60_000;
/**
 * A reload that found `session-fresh` knows only that a minute of the access cookie is left:
 * it renews well within that minute, after the member's data has come in.
 */
export const RESTORED_RENEW_AFTER_MS = 20_000;
const MIN_RENEW_AFTER_MS = 30_000;

/** Renew at 80 % of the access lifetime the gateway announced. */
export function renewDelayMs(expiresInSeconds: unknown): number {
  if (typeof expiresInSeconds !== 'number' || !Number.isFinite(expiresInSeconds) || expiresInSeconds <= 0) {
    return DEFAULT_RENEW_AFTER_MS;
  }
  return Math.max(MIN_RENEW_AFTER_MS, Math.floor(expiresInSeconds * 800));
}

let inflight: Promise<boolean> | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
let dueAt = 0;

function schedule(delayMs: number): void {
  clearTimeout(timer);
  dueAt = Date.now() + delayMs;
  timer = setTimeout(() => {
    if (sessionStore.get().isLoggedIn) void renewSession();
  }, delayMs);
}

export function stopSessionRenewal(): void {
  clearTimeout(timer);
  timer = undefined;
  dueAt = 0;
}

/** One renewal at a time; true when the gateway renewed the session. */
export function renewSession(): Promise<boolean> {
  inflight ??= refreshSession()
    .then((result) => {
      if (sessionStore.get().isLoggedIn) schedule(renewDelayMs(result?.expiresInSeconds));
      return true;
    })
    .catch((error: unknown) => {
      // 401: already logged out by the API client. Anything else: try again later; the access
      // cookie may still be valid.
      if (!(error instanceof ApiError && error.status === 401) && sessionStore.get().isLoggedIn) {
        schedule(DEFAULT_RENEW_AFTER_MS);
      }
      return false;
    })
    .finally(() => {
      inflight = null;
    });
  return inflight;
}

async function renewIfDue(): Promise<void> {
  if (sessionStore.get().isLoggedIn && dueAt !== 0 && Date.now() >= dueAt) await renewSession();
}

export function useSessionKeeper(): void {
  const { isLoggedIn, isConfirmed, isRestored } = useSession();

  useEffect(() => {
    if (!isLoggedIn) {
      stopSessionRenewal();
      return;
    }
    if (!isConfirmed) {
      // Restored from a reload without `session-fresh`: the access cookie may have expired.
      void renewSession().then(() => {
        if (sessionStore.get().isLoggedIn) confirmSession();
      });
    } else if (timer === undefined) {
      // Fresh from the code step, or restored with a working access cookie.
      schedule(isRestored ? RESTORED_RENEW_AFTER_MS : DEFAULT_RENEW_AFTER_MS);
    }
  }, [isLoggedIn, isConfirmed, isRestored]);

  useEffect(() => {
    // Queries refetch when the tab is shown again; an overdue renewal goes first so they do not
    // meet an expired access cookie (which the 401 rule would turn into a logout).
    focusManager.setEventListener((setFocused) => {
      const onVisibilityChange = () => {
        if (document.visibilityState === 'visible') void renewIfDue().finally(() => setFocused(true));
        else setFocused(false);
      };
      window.addEventListener('visibilitychange', onVisibilityChange, false);
      return () => window.removeEventListener('visibilitychange', onVisibilityChange);
    });
  }, []);
}
