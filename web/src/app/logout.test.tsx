import { screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { SESSION_EXPIRED_NOTICE } from '@/lib/login-notice';
import { PERSONAL_CACHE_NAME } from '@/lib/personal-cache';
import { sessionStore } from '@/lib/session';
import { apiError } from '@/testing/api-errors';
import { installCacheStorage } from '@/testing/cache-storage';
import { DEMO_PASSWORD, TYPED_OTP } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import {
  accountMenuLink,
  currentLocation,
  currentUrl,
  loginAs,
  renderApp,
  shownLocations,
  storeHasMissions,
} from '@/testing/test-utils';

function logoutCalls() {
  return sent.filter((r) => r.path === '/api/logout');
}

/** /login's heading; the first route chunks of a file load slowly on a busy machine. */
function findLoginHeading() {
  return screen.findByRole('heading', { level: 1, name: 'Inicia sesión' }, { timeout: 5000 });
}

/** Every value of localStorage and sessionStorage, as one string to search. */
function storedText(): string {
  return JSON.stringify([{ ...window.localStorage }, { ...window.sessionStorage }]);
}

describe('a forced logout', () => {
  it('says on /login that the session expired when a member request answers 401', async () => {
    loginAs();
    storeHasMissions(true);
    server.use(http.get('/api/balance', () => apiError('ERR_UNAUTHENTICATED')));
    const { queryClient } = renderApp('/mi-club');
    await findLoginHeading();
    expect(currentLocation()).toBe('/login');
    expect(screen.getByRole('status')).toHaveTextContent(SESSION_EXPIRED_NOTICE);
    expect(SESSION_EXPIRED_NOTICE).toBe('Tu sesión expiró. Vuelve a iniciar sesión.');
    expect(sessionStore.get().isLoggedIn).toBe(false);
    // Nothing personal stays behind for the back button or a cached screen.
    expect(queryClient.getQueryData(['profile'])).toBeUndefined();
    expect(queryClient.getQueryData(['balance'])).toBeUndefined();
    expect(window.localStorage.length).toBe(0);
    expect(document.cookie).not.toContain('is-logged=true');
  });

  it('goes from a section straight to /login with the way back, never by plain /login', async () => {
    loginAs();
    server.use(http.get('/api/movements', () => apiError('ERR_UNAUTHENTICATED')));
    renderApp('/mi-club/movimientos?mes=2026-10');
    await findLoginHeading();
    const back = `/login?redirect=${encodeURIComponent('/mi-club/movimientos?mes=2026-10')}`;
    expect(currentUrl()).toBe(back);
    expect(screen.getByRole('status')).toHaveTextContent(SESSION_EXPIRED_NOTICE);
    expect(shownLocations()).toEqual(['/mi-club/movimientos?mes=2026-10', back]);
  });

  it('leaves Mi Cuenta for plain /login, where logging in comes back by default', async () => {
    loginAs();
    server.use(http.get('/api/balance', () => apiError('ERR_UNAUTHENTICATED')));
    renderApp('/mi-club');
    await findLoginHeading();
    expect(currentUrl()).toBe('/login');
    expect(shownLocations()).toEqual(['/mi-club', '/login']);
  });

  it('deletes the member card kept for offline use when a request answers 401', async () => {
    const storage = installCacheStorage();
    loginAs();
    const { user } = renderApp('/mi-club/tarjeta');
    expect(await screen.findByTestId('card-number', {}, { timeout: 8_000 })).toHaveTextContent('7391 0264 5812');
    // Opening the card kept it on the device, for the till without a network.
    await waitFor(() => expect(storage.urlsNow(PERSONAL_CACHE_NAME)).toEqual(['http://localhost:3000/api/card']));
    // Then the gateway no longer knows the session (closed from another device, say).
    server.use(http.get('/api/balance', () => apiError('ERR_UNAUTHENTICATED')));
    await user.click(accountMenuLink('Mi Cuenta'));
    await findLoginHeading();
    expect(screen.getByRole('status')).toHaveTextContent(SESSION_EXPIRED_NOTICE);
    await waitFor(() => expect(storage.namesNow()).toEqual([]));
  });

  it('says so as well when a reload finds the session idled out (the renewal answers 401)', async () => {
    // The gateway refuses the refresh of a session past its idle or absolute limit.
    document.cookie = 'is-logged=true; Path=/';
    server.use(http.post('/api/refresh', () => apiError('ERR_UNAUTHENTICATED')));
    storeHasMissions(true);
    renderApp('/mi-club');
    await findLoginHeading();
    expect(screen.getByRole('status')).toHaveTextContent(SESSION_EXPIRED_NOTICE);
    expect(sent.map((r) => r.path)).not.toContain('/api/balance');
  });

  it('leaves a page that needs no session for /login, which comes back to it after logging in', async () => {
    loginAs();
    server.use(http.get('/api/profile', () => apiError('ERR_UNAUTHENTICATED'), { once: true }));
    const { user } = renderApp('/promociones');
    await findLoginHeading();
    expect(currentLocation()).toBe('/login');
    expect(screen.getByRole('status')).toHaveTextContent(SESSION_EXPIRED_NOTICE);

    await user.type(screen.getByLabelText('RUT'), '111111111');
    await user.type(screen.getByLabelText('Contraseña'), DEMO_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Ingresar' }));
    await user.type(await screen.findByLabelText('Código de verificación'), TYPED_OTP);
    await user.click(screen.getByRole('button', { name: 'Validar código' }));
    await screen.findByRole('heading', { level: 1, name: 'Promociones' });
    expect(currentLocation()).toBe('/promociones');
  });

  it('shows the notice once: a later visit to /login does not repeat it', async () => {
    loginAs();
    server.use(http.get('/api/balance', () => apiError('ERR_UNAUTHENTICATED')));
    const { user } = renderApp('/mi-club');
    await screen.findByText(SESSION_EXPIRED_NOTICE);
    await user.click(screen.getByRole('link', { name: 'Preguntas frecuentes' }));
    await screen.findByRole('heading', { level: 1, name: /Preguntas/ });
    await user.click(within(screen.getByRole('banner')).getByRole('button', { name: 'Iniciar sesión' }));
    const dialog = await screen.findByRole('dialog', { name: 'Inicia sesión' });
    expect(within(dialog).queryByText(SESSION_EXPIRED_NOTICE)).not.toBeInTheDocument();
  });

  it('tells a visitor nothing: a stray 401 without a session is no forced logout', async () => {
    renderApp('/login');
    await screen.findByLabelText('RUT');
    const { api } = await import('@/lib/api-client');
    await api.get('/api/profile').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByText(SESSION_EXPIRED_NOTICE)).not.toBeInTheDocument();
    expect(logoutCalls()).toHaveLength(0);
  });
});

describe('a logout the member asks for', () => {
  it('shows no expiry notice on /login', async () => {
    loginAs();
    const { user } = renderApp('/mi-club');
    await screen.findByTestId('balance-amount');
    await user.click(screen.getByRole('button', { name: 'Cerrar sesión' }));
    await findLoginHeading();
    await waitFor(() => expect(logoutCalls()).toHaveLength(1));
    expect(screen.queryByText(SESSION_EXPIRED_NOTICE)).not.toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('still logs out in this browser when the gateway answers 503 (it could not record the logout)', async () => {
    loginAs();
    storeHasMissions(true);
    let answered503 = 0;
    server.use(
      http.post('/api/logout', () => {
        answered503 += 1;
        return apiError('ERR_UNAVAILABLE');
      }),
    );
    const { user, queryClient } = renderApp('/mi-club');
    await screen.findByTestId('balance-amount');
    await user.click(screen.getByRole('button', { name: 'Cerrar sesión' }));
    await findLoginHeading();
    await waitFor(() => expect(answered503).toBe(1));
    expect(sessionStore.get().isLoggedIn).toBe(false);
    expect(document.cookie).not.toContain('is-logged=true');
    expect(queryClient.getQueryData(['profile'])).toBeUndefined();
    expect(queryClient.getQueryData(['balance'])).toBeUndefined();
    expect(window.localStorage.length).toBe(0);
    expect(screen.queryByText(SESSION_EXPIRED_NOTICE)).not.toBeInTheDocument();
    // The "Cerrar sesión" button is not left busy, and /mi-club is no longer reachable.
    expect(currentLocation()).toBe('/login');
  });

  it("leaves no name, email or RUT of the member in browser storage, logged in or out", async () => {
    const ana = loginAs();
    storeHasMissions(true);
    const { user } = renderApp('/mi-club');
    await screen.findByRole('heading', { level: 1, name: 'Hola, Ana' });
    await user.click(accountMenuLink('Mis Datos'));
    await screen.findByDisplayValue(ana.email);
    for (const personal of [ana.name, ana.last_name, ana.email, '11.111.111-1', ana.documentNumber, '111111111']) {
      expect(storedText()).not.toContain(personal);
    }
    expect(storedText()).not.toContain(DEMO_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Cerrar sesión' }));
    await findLoginHeading();
    expect(window.localStorage.length).toBe(0);
    expect(window.sessionStorage.length).toBe(0);
  });
});

describe('the session after a reload', () => {
  it('shows the name GET /api/profile gives, never one from storage', async () => {
    loginAs();
    // What an earlier version left behind, with a name the gateway does not give.
    window.localStorage.setItem('miclub:session', JSON.stringify({ name: 'Impostora', hasMissions: true }));
    renderApp('/mi-club');
    expect(await screen.findByRole('heading', { level: 1, name: 'Hola, Ana' })).toBeInTheDocument();
    expect(screen.queryByText(/Impostora/)).not.toBeInTheDocument();
    expect(window.localStorage.getItem('miclub:session')).toBeNull();
  });

  it('greets without a name until the profile answers', async () => {
    loginAs();
    server.use(http.get('/api/profile', () => apiError('ERR_UNAVAILABLE'), { once: true }));
    renderApp('/mi-club');
    expect(await screen.findByRole('heading', { level: 1, name: 'Hola' })).toBeInTheDocument();
    expect(within(screen.getByRole('banner')).getByRole('link', { name: /Mi cuenta/ })).toBeInTheDocument();
  });
});
