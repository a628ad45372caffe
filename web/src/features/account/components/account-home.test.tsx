import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { brunoProfile } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { accountMenuLink, currentLocation, currentUrl, loginAs, renderApp, storeHasMissions } from '@/testing/test-utils';

import { accountNoticeOf, ACCOUNT_MENU, visibleMenuItems, withAccountNotice } from '../stores/account-menu';

/** The menu's entries: the sections' links, then the logout button. */
function menuEntries() {
  const nav = screen.getByRole('navigation', { name: 'Menú de mi cuenta' });
  return [...within(nav).getAllByRole('link'), ...within(nav).getAllByRole('button')];
}

describe('the account menu', () => {
  it('lists the entries in the spec order with indexes 0 to 4, then the card at 5', () => {
    expect(ACCOUNT_MENU.map((item) => [item.index, item.label])).toEqual([
      [0, 'Mi Cuenta'],
      [1, 'Mis Datos'],
      [2, 'Mis Movimientos'],
      [3, 'Términos y Condiciones'],
      [4, 'Misiones'],
      [5, 'Mi Tarjeta'],
    ]);
  });

  it('shows Misiones only when the member has missions', () => {
    expect(visibleMenuItems(true).map((item) => item.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(visibleMenuItems(false).map((item) => item.index)).toEqual([0, 1, 2, 3, 5]);
  });

  it('renders Misiones for a member with missions, Mi Cuenta selected by default', async () => {
    loginAs();
    storeHasMissions(true);
    renderApp('/mi-club');
    await screen.findByRole('heading', { name: 'Hola, Ana' });
    const entries = menuEntries();
    expect(entries.map((entry) => entry.textContent)).toEqual([
      'Mi Cuenta',
      'Mis Datos',
      'Mis Movimientos',
      'Términos y Condiciones',
      'Misiones',
      'Mi Tarjeta',
      'Cerrar sesión',
    ]);
    expect(entries.map((entry) => entry.getAttribute('data-menu-index'))).toEqual(['0', '1', '2', '3', '4', '5', null]);
    expect(entries.slice(0, 6).map((entry) => entry.getAttribute('href'))).toEqual([
      '/mi-club',
      '/mi-club/mis-datos',
      '/mi-club/movimientos',
      '/mi-club/terminos',
      '/mi-club/misiones',
      '/mi-club/tarjeta',
    ]);
    expect(accountMenuLink('Mi Cuenta')).toHaveAttribute('aria-current', 'page');
  });

  it('hides Misiones for a member without missions', async () => {
    loginAs(brunoProfile);
    renderApp('/mi-club');
    await screen.findByRole('heading', { name: 'Hola, Bruno' });
    expect(screen.queryByRole('link', { name: 'Misiones' })).not.toBeInTheDocument();
  });

  it('shows each section under its entry at its own address, Misiones included', async () => {
    loginAs();
    storeHasMissions(true);
    const { user } = renderApp('/mi-club');
    await screen.findByRole('heading', { name: 'Hola, Ana' });
    for (const [label, path] of [
      ['Mis Datos', '/mi-club/mis-datos'],
      ['Mis Movimientos', '/mi-club/movimientos'],
      ['Términos y Condiciones', '/mi-club/terminos'],
      ['Misiones', '/mi-club/misiones'],
      ['Mi Tarjeta', '/mi-club/tarjeta'],
    ] as const) {
      await user.click(accountMenuLink(label));
      expect(await screen.findByRole('heading', { level: 2, name: label })).toBeInTheDocument();
      expect(accountMenuLink(label)).toHaveAttribute('aria-current', 'page');
      expect(currentLocation()).toBe(path);
    }
    expect(screen.queryByText('Próximamente')).not.toBeInTheDocument();
  });

  it.each([
    ['/mi-club/mis-datos', 'Mis Datos'],
    ['/mi-club/movimientos', 'Mis Movimientos'],
    ['/mi-club/terminos', 'Términos y Condiciones'],
    ['/mi-club/misiones', 'Misiones'],
    ['/mi-club/tarjeta', 'Mi Tarjeta'],
    ['/mi-club/movimientos/', 'Mis Movimientos'],
  ])('opens %s by its address', async (path, label) => {
    loginAs();
    storeHasMissions(true);
    renderApp(path);
    expect(await screen.findByRole('heading', { level: 2, name: label })).toBeInTheDocument();
    expect(accountMenuLink(label)).toHaveAttribute('aria-current', 'page');
    expect(screen.queryByTestId('balance-amount')).not.toBeInTheDocument();
  });

  it('sends a member without missions from /mi-club/misiones to Mi Cuenta', async () => {
    loginAs(brunoProfile);
    renderApp('/mi-club/misiones');
    await screen.findByRole('heading', { level: 2, name: 'Tu saldo Mi Club' });
    expect(currentLocation()).toBe('/mi-club');
    expect(accountMenuLink('Mi Cuenta')).toHaveAttribute('aria-current', 'page');
  });

  it('answers an unknown address under /mi-club with the not-found page, session or not', async () => {
    loginAs();
    renderApp('/mi-club/saldo-secreto');
    expect(await screen.findByRole('heading', { level: 1, name: 'No encontramos lo que buscas.' })).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Menú de mi cuenta' })).not.toBeInTheDocument();
    expect(currentLocation()).toBe('/mi-club/saldo-secreto');
  });

  it('reads a notice only from a history state that holds one', () => {
    expect(accountNoticeOf(withAccountNotice('Aceptaste los términos y condiciones.'))).toBe(
      'Aceptaste los términos y condiciones.',
    );
    for (const state of [null, undefined, 'texto', { accountNotice: 3 }, { accountNotice: '' }, { other: 'x' }]) {
      expect(accountNoticeOf(state)).toBeNull();
    }
  });
});

describe('the balance', () => {
  it('shows the balance in pesos with thousands dots', async () => {
    loginAs();
    renderApp('/mi-club');
    expect(await screen.findByTestId('balance-amount')).toHaveTextContent('$12.345');
  });

  it('asks for the balance without cache', async () => {
    loginAs();
    renderApp('/mi-club');
    await screen.findByTestId('balance-amount');
    expect(sent.find((r) => r.path === '/api/balance')?.headers['cache-control']).toBe('no-store');
  });

  it('shows a loading state while the balance is on its way', async () => {
    loginAs();
    server.use(
      http.get('/api/balance', async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    renderApp('/mi-club');
    const loading = await screen.findByText('Cargando tu saldo…');
    expect(loading.closest('[role="status"]')).not.toBeNull();
    expect(screen.queryByTestId('balance-amount')).not.toBeInTheDocument();
  });

  it('shows the without-account state on 406', async () => {
    loginAs(brunoProfile);
    server.use(http.get('/api/balance', () => apiError('ERR_NO_CLUB_ACCOUNT')));
    renderApp('/mi-club');
    expect(await screen.findByText('Aún no tienes una cuenta Mi Club.')).toBeInTheDocument();
    expect(screen.queryByTestId('balance-amount')).not.toBeInTheDocument();
    // The page load's early request is the answer: the card shown moments later does not ask again.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(sent.filter((r) => r.path === '/api/balance')).toHaveLength(1);
  });

  it('shows a failure with a retry on other errors', async () => {
    loginAs();
    server.use(http.get('/api/balance', () => apiError('ERR_UNAVAILABLE')));
    const { user } = renderApp('/mi-club');
    expect(await screen.findByRole('alert')).toHaveTextContent('No pudimos cargar tu saldo. Intenta de nuevo más tarde.');
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByTestId('balance-amount')).toHaveTextContent('$12.345');
  });
});

describe('logout', () => {
  it('calls /api/logout, resets the state and goes to /login', async () => {
    loginAs();
    storeHasMissions(true);
    const { user, queryClient } = renderApp('/mi-club');
    await screen.findByTestId('balance-amount');
    await user.click(accountMenuLink('Mis Movimientos'));
    await user.click(screen.getByRole('button', { name: 'Cerrar sesión' }));
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(currentLocation()).toBe('/login');
    await waitFor(() => expect(sent.filter((r) => r.path === '/api/logout')).toHaveLength(1));
    expect(sent.find((r) => r.path === '/api/logout')?.headers['x-miclub-csrf']).toBe('1');
    expect(window.localStorage.length).toBe(0);
    expect(queryClient.getQueryData(['balance'])).toBeUndefined();
    expect(queryClient.getQueryData(['profile'])).toBeUndefined();
    expect(document.cookie).not.toContain('is-logged=true');
  });

  it('leaves no way back to the section for the next login', async () => {
    loginAs();
    storeHasMissions(true);
    const { user } = renderApp('/mi-club');
    await screen.findByTestId('balance-amount');
    await user.click(accountMenuLink('Misiones'));
    await screen.findByRole('heading', { level: 2, name: 'Misiones' });
    await user.click(screen.getByRole('button', { name: 'Cerrar sesión' }));
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    // Plain /login: logging in again opens Mi Cuenta (its default), not Misiones.
    expect(currentUrl()).toBe('/login');
  });
});
