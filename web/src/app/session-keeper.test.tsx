import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { sessionStore } from '@/lib/session';
import { apiError } from '@/testing/api-errors';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { currentLocation, loginAs, renderApp, storeHasMissions } from '@/testing/test-utils';

import { DEFAULT_RENEW_AFTER_MS, renewDelayMs, renewSession, RESTORED_RENEW_AFTER_MS } from './session-keeper';

function paths() {
  return sent.map((r) => r.path);
}

describe('session renewal', () => {
  afterEach(() => vi.useRealTimers());

  it('renews at 80 % of the access lifetime the gateway announces', () => {
    expect(renewDelayMs(900)).toBe(720_000);
    expect(renewDelayMs(10)).toBe(30_000);
    expect(renewDelayMs(undefined)).toBe(DEFAULT_RENEW_AFTER_MS);
    expect(renewDelayMs(-1)).toBe(DEFAULT_RENEW_AFTER_MS);
  });

  it('renews a session restored from a reload before asking for the profile and the balance', async () => {
    loginAs();
    storeHasMissions(true);
    renderApp('/mi-club');
    expect(await screen.findByTestId('balance-amount')).toHaveTextContent('$12.345');
    await waitFor(() => expect(paths()).toContain('/api/profile'));
    const refresh = paths().indexOf('/api/refresh');
    expect(refresh).toBeGreaterThanOrEqual(0);
    expect(refresh).toBeLessThan(paths().indexOf('/api/profile'));
    expect(refresh).toBeLessThan(paths().indexOf('/api/balance'));
    expect(sent[refresh]?.headers['x-miclub-csrf']).toBe('1');
  });

  it('asks for the balance at once on a reload that finds session-fresh, and renews within its minute', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    loginAs();
    document.cookie = 'session-fresh=true; Path=/';
    renderApp('/mi-club');
    expect(await screen.findByTestId('balance-amount')).toHaveTextContent('$12.345');
    expect(paths()).not.toContain('/api/refresh');
    await vi.advanceTimersByTimeAsync(RESTORED_RENEW_AFTER_MS + 1_000);
    await waitFor(() => expect(paths().filter((path) => path === '/api/refresh')).toHaveLength(1));
    expect(RESTORED_RENEW_AFTER_MS).toBeLessThan(60_000);
  });

  it('still shows the account when the renewal fails without a 401', async () => {
    loginAs();
    server.use(http.post('/api/refresh', () => apiError('ERR_UNAVAILABLE')));
    renderApp('/mi-club');
    expect(await screen.findByTestId('balance-amount')).toHaveTextContent('$12.345');
    expect(sessionStore.get().isLoggedIn).toBe(true);
  });

  it('logs out when the renewal answers 401', async () => {
    document.cookie = 'is-logged=true; Path=/';
    server.use(http.post('/api/refresh', () => apiError('ERR_UNAUTHENTICATED')));
    renderApp('/mi-club');
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(currentLocation()).toBe('/login');
    expect(paths()).not.toContain('/api/balance');
  });

  it('never sends two renewals at once', async () => {
    loginAs();
    sessionStore.set({ isLoggedIn: true, isConfirmed: true, isRestored: false, name: 'Ana', hasMissions: true });
    await Promise.all([renewSession(), renewSession(), renewSession()]);
    expect(paths().filter((path) => path === '/api/refresh')).toHaveLength(1);
  });

  it('renews on a timer after logging in', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    loginAs();
    renderApp('/mi-club');
    await screen.findByTestId('balance-amount');
    const before = paths().filter((path) => path === '/api/refresh').length;
    await vi.advanceTimersByTimeAsync(720_000 + 1_000);
    await waitFor(() => expect(paths().filter((path) => path === '/api/refresh').length).toBe(before + 1));
  });

  it('answers the renewal with the lifetime the gateway gives', async () => {
    server.use(http.post('/api/refresh', () => HttpResponse.json({ expiresInSeconds: 60 })));
    loginAs();
    sessionStore.set({ isLoggedIn: true, isConfirmed: true, isRestored: false, name: 'Ana', hasMissions: true });
    await expect(renewSession()).resolves.toBe(true);
  });
});
