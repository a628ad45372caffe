import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { MOCK_NOW } from '@/testing/fixtures/account';
import { anaSessionAlone } from '@/testing/fixtures/security';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { accountMenuLink, currentLocation, loginAs, renderAccountSection, renderApp, storeHasMissions } from '@/testing/test-utils';

const ACTIVITY = '/mi-club/mis-datos/actividad';
const OTHER_ID = '6c2e1f9a-3d4b-4e8f-a1b2-c3d4e5f60718';

async function openActivity() {
  loginAs();
  storeHasMissions(true);
  const view = renderApp(ACTIVITY);
  await screen.findByRole('heading', { level: 2, name: 'Actividad de la cuenta' }, { timeout: 4_000 });
  return view;
}

async function sessionItems() {
  const list = await screen.findByRole('list', { name: 'Sesiones abiertas' });
  return within(list).getAllByTestId('open-session');
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: MOCK_NOW });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Actividad de la cuenta', () => {
  it('is reached from Mis Datos, which stays the selected entry of the menu', async () => {
    const { user } = await renderAccountSection('Mis Datos');
    await user.click(await screen.findByRole('link', { name: 'Ver la actividad de la cuenta' }));
    await screen.findByRole('heading', { level: 2, name: 'Actividad de la cuenta' });
    expect(currentLocation()).toBe(ACTIVITY);
    expect(accountMenuLink('Mis Datos')).toHaveAttribute('aria-current', 'page');
    await waitFor(() => expect(document.title).toBe('Actividad de la cuenta · Mi Club'));
  });

  it('lists the open sessions with browser, system and es-CL dates, this one marked and not closable', async () => {
    await openActivity();
    const [current, other] = (await sessionItems()) as [HTMLElement, HTMLElement];
    expect(within(current).getByText('Chrome en Windows', { exact: false })).toBeInTheDocument();
    expect(within(current).getByText('Esta sesión')).toBeInTheDocument();
    expect(within(current).queryByRole('button')).not.toBeInTheDocument();
    expect(within(other).getByText('Safari en iOS', { exact: false })).toBeInTheDocument();
    expect(within(other).getByText(/20 de noviembre de 2026/)).toBeInTheDocument();
    expect(within(other).getByRole('button', { name: /^Cerrar la sesión de Safari en iOS iniciada el 20 de noviembre de 2026/ })).toHaveTextContent('Cerrar sesión');
  });

  it('lists the security events of the last 90 days in Spanish, failed attempts included', async () => {
    await openActivity();
    const list = await screen.findByRole('list', { name: 'Eventos de seguridad' });
    const labels = within(list)
      .getAllByTestId('security-event')
      .map((item) => item.querySelector('.activity-event__label')?.textContent);
    expect(labels).toEqual([
      'Inicio de sesión',
      'Intento de inicio de sesión fallido: código incorrecto',
      'Intento de inicio de sesión fallido: contraseña incorrecta',
      'Cambio de contraseña',
    ]);
    expect(within(list).getByText(/10 de noviembre de 2026/)).toBeInTheDocument();
  });

  it('closes another session with its id and reads the list again', async () => {
    const { user } = await openActivity();
    await sessionItems();
    server.use(http.get('/api/security/sessions', () => HttpResponse.json(anaSessionAlone)));
    await user.click(screen.getByRole('button', { name: /^Cerrar la sesión de Safari en iOS/ }));
    expect(await screen.findByRole('status')).toHaveTextContent('Cerramos la sesión.');
    const closing = sent.filter((request) => request.method === 'DELETE');
    expect(closing.map((request) => request.path)).toEqual([`/api/security/sessions/${OTHER_ID}`]);
    expect(closing[0]?.headers['x-miclub-csrf']).toBe('1');
    await waitFor(async () => expect(await sessionItems()).toHaveLength(1));
    expect(screen.getByText('No tienes otras sesiones abiertas.')).toBeInTheDocument();
  });

  it('says so when the session was closed already, in the gateway words', async () => {
    const { user } = await openActivity();
    await sessionItems();
    const gone = 'No encontramos esa sesión abierta. Puede que ya esté cerrada.';
    server.use(http.delete('/api/security/sessions/:id', () => apiError('ERR_NOT_FOUND', { message: gone })));
    await user.click(screen.getByRole('button', { name: /^Cerrar la sesión de Safari en iOS/ }));
    expect(await screen.findByRole('alert')).toHaveTextContent(gone);
  });

  it('closes the other sessions at once and says how many', async () => {
    const { user } = await openActivity();
    await sessionItems();
    server.use(http.get('/api/security/sessions', () => HttpResponse.json(anaSessionAlone)));
    await user.click(screen.getByRole('button', { name: 'Cerrar las demás sesiones' }));
    expect(await screen.findByRole('status')).toHaveTextContent('Cerramos 1 sesión.');
    expect(sent.filter((request) => request.path === '/api/security/sessions/close-others')).toHaveLength(1);
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Cerrar las demás sesiones' })).not.toBeInTheDocument());
  });

  it('offers a retry when the sessions or the events cannot be loaded', async () => {
    server.use(
      http.get('/api/security/sessions', () => apiError('ERR_UNAVAILABLE')),
      http.get('/api/security/events', () => apiError('ERR_UNAVAILABLE')),
    );
    await openActivity();
    expect(await screen.findByText('No pudimos cargar tus sesiones. Intenta de nuevo más tarde.')).toBeInTheDocument();
    expect(await screen.findByText('No pudimos cargar los eventos de seguridad. Intenta de nuevo más tarde.')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'Reintentar' })).toHaveLength(2);
  });

  it('sends a visitor without a session to the login, with the way back', async () => {
    renderApp(ACTIVITY);
    await waitFor(() => expect(currentLocation()).toBe('/login'));
  });
});
