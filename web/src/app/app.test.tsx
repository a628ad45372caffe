import { act, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { CONTEXT_REFETCH_INTERVAL_MS, getContextQueryOptions } from '@/features/context/api/get-context';
import { sessionStore } from '@/lib/session';
import { apiError } from '@/testing/api-errors';
import { context } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { accountMenuLink, contextSays, currentLocation, dataLayerEvents, loginAs, renderApp, storeHasMissions } from '@/testing/test-utils';

import { focusMainHeading } from './route-focus';
import { pageTypeOf } from './router';

describe('the maintenance screen', () => {
  it('replaces the whole page when the context switches the portal off', async () => {
    contextSays({ portalEnabled: false });
    renderApp('/login');
    expect(await screen.findByText('Estamos trabajando para brindarte la mejor experiencia')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: '¡PRONTO EL NUEVO MI CLUB!' })).toBeInTheDocument();
    expect(screen.queryByLabelText('RUT')).not.toBeInTheDocument();
    expect(dataLayerEvents('tipo_pagina').at(-1)).toMatchObject({ tipo_pagina: 'mantencion' });
  });

  it('replaces routes with header and footer too', async () => {
    contextSays({ portalEnabled: false });
    renderApp('/promociones');
    expect(await screen.findByText('¡PRONTO EL NUEVO MI CLUB!')).toBeInTheDocument();
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
  });

  it('shows nothing of the portal before the context answers', async () => {
    server.use(
      http.get('/api/context', async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    renderApp('/login');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByLabelText('RUT')).not.toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Cargando…');
  });

  it('falls back to an open portal when the context cannot be read', async () => {
    server.use(http.get('/api/context', () => HttpResponse.error()));
    renderApp('/login');
    expect(await screen.findByLabelText('RUT')).toBeInTheDocument();
  });

  it('re-reads the context every minute', () => {
    expect(CONTEXT_REFETCH_INTERVAL_MS).toBe(60_000);
    expect(getContextQueryOptions().refetchInterval).toBe(60_000);
  });
});

describe('runtime flags changed while the page is open', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Lets the minute of the context poll pass (only intervals are faked: MSW and React keep running). */
  async function nextContextPoll() {
    await act(async () => {
      vi.advanceTimersByTime(CONTEXT_REFETCH_INTERVAL_MS);
    });
  }

  it('replaces the page with the maintenance screen within a minute, without a reload', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    renderApp('/promociones');
    await screen.findByRole('heading', { level: 1, name: 'Promociones' });
    contextSays({ portalEnabled: false });
    await nextContextPoll();
    expect(await screen.findByRole('heading', { name: '¡PRONTO EL NUEVO MI CLUB!' })).toBeInTheDocument();
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
    expect(dataLayerEvents('tipo_pagina').at(-1)).toMatchObject({ tipo_pagina: 'mantencion' });
    // And back, when ops open the portal again.
    contextSays({ portalEnabled: true });
    await nextContextPoll();
    expect(await screen.findByRole('heading', { level: 1, name: 'Promociones' })).toBeInTheDocument();
  });

  it('closes the login when isLoginMaintenance turns on, and reopens it when it turns off', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    renderApp('/login');
    await screen.findByLabelText('RUT');
    contextSays({ isLoginMaintenance: true });
    await nextContextPoll();
    await waitFor(() => expect(screen.queryByLabelText('RUT')).not.toBeInTheDocument());
    contextSays({ isLoginMaintenance: false });
    await nextContextPoll();
    expect(await screen.findByLabelText('RUT')).toBeInTheDocument();
  });

  it('offers the password change in Mis Datos once changePasswordEnable turns on', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    loginAs();
    const { user } = renderApp('/mi-club');
    await screen.findByRole('heading', { name: 'Hola, Ana' });
    await user.click(accountMenuLink('Mis Datos'));
    await screen.findByRole('heading', { level: 2, name: 'Mis Datos' });
    await screen.findByLabelText('Correo electrónico');
    expect(screen.queryByLabelText('Contraseña actual')).not.toBeInTheDocument();
    contextSays({ changePasswordEnable: true });
    await nextContextPoll();
    expect(await screen.findByLabelText('Contraseña actual')).toBeInTheDocument();
  });
});

describe('the shell', () => {
  it.each([
    { path: '/promociones', title: 'Promociones', pageType: 'promociones' },
    { path: '/alianzas', title: 'Alianzas', pageType: 'alianzas' },
    { path: '/preguntas-login', title: 'Preguntas frecuentes para iniciar sesión', pageType: 'preguntas_login' },
    { path: '/preguntas-frecuentes', title: 'Preguntas frecuentes', pageType: 'preguntas_frecuentes' },
  ])('shows $path inside header, main and footer', async ({ path, title, pageType }) => {
    renderApp(path);
    expect(await screen.findByRole('heading', { level: 1, name: title })).toBeInTheDocument();
    expect(pageTypeOf(path)).toBe(pageType);
    expect(screen.getByRole('banner')).toBeInTheDocument();
    expect(screen.getByRole('main')).toBeInTheDocument();
    expect(screen.getByRole('contentinfo')).toBeInTheDocument();
  });

  it('has the four top navigation links with their default URLs', async () => {
    renderApp('/promociones');
    const nav = await screen.findByRole('navigation', { name: 'Principal' });
    const links = within(nav).getAllByRole('link');
    expect(links.map((link) => link.textContent)).toEqual([
      'Home',
      'Alianzas',
      'Más formas de acumular',
      'Tarjeta Lider BCI',
    ]);
    for (const link of links) expect(link.getAttribute('href')).toMatch(/^https:\/\//);
  });

  it('takes the navigation URLs from the context and ignores unsafe ones', async () => {
    contextSays({
      links: {
        ...context.links,
        alliances: 'https://example.cl/alianzas',
        home: 'javascript:alert(1)',
        moreWaysToAccumulate: '/\\evil.example/acumular',
      },
    });
    renderApp('/promociones');
    const nav = await screen.findByRole('navigation', { name: 'Principal' });
    expect(within(nav).getByRole('link', { name: 'Alianzas' })).toHaveAttribute('href', 'https://example.cl/alianzas');
    expect(within(nav).getByRole('link', { name: 'Home' })).toHaveAttribute('href', 'https://www.lider.cl/');
    expect(within(nav).getByRole('link', { name: 'Más formas de acumular' })).toHaveAttribute(
      'href',
      'https://www.lider.cl/mi-club/mas-formas-de-acumular',
    );
  });

  it('has the footer groups of the spec', async () => {
    renderApp('/promociones');
    const footer = await screen.findByRole('contentinfo');
    expect(within(footer).getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual([
      'Preguntas frecuentes',
      'Legal',
      'Tiendas y despacho',
      'Nosotros',
      'Síguenos',
    ]);
    for (const name of [
      'Nuestras tiendas',
      'Retiro en tienda',
      'Cobertura supermercado',
      'Quiénes somos',
      'Términos y condiciones',
      'Información legal',
      'Ganadores aniversario',
      'Bases influencers',
      'Facebook',
      'Instagram',
      'Twitter',
      'YouTube',
    ]) {
      expect(within(footer).getByRole('link', { name })).toBeInTheDocument();
    }
  });

  it('adds the bottom spacer on /mi-club only', async () => {
    loginAs();
    const first = renderApp('/mi-club');
    await screen.findByRole('heading', { name: /Hola/ });
    expect(screen.getByTestId('bottom-spacer')).toBeInTheDocument();
    first.unmount();
    renderApp('/promociones');
    await screen.findByRole('heading', { name: 'Promociones' });
    expect(screen.queryByTestId('bottom-spacer')).not.toBeInTheDocument();
  });

  it('shows a not-found page for unknown routes', async () => {
    renderApp('/no-existe');
    expect(await screen.findByRole('heading', { name: 'No encontramos lo que buscas.' })).toBeInTheDocument();
    expect(dataLayerEvents('tipo_pagina').at(-1)).toMatchObject({ tipo_pagina: 'no_encontrada' });
  });

  it('pushes the page type on every route', async () => {
    const { user } = renderApp('/promociones');
    await screen.findByRole('heading', { name: 'Promociones' });
    expect(dataLayerEvents('tipo_pagina')).toEqual([
      { event: 'tipo_pagina', tipo_pagina: 'promociones', ruta: '/promociones' },
    ]);
    await user.click(screen.getByRole('link', { name: 'Términos y condiciones' }));
    await screen.findByRole('heading', { level: 1, name: 'Términos y condiciones' });
    // The push follows the navigation's commit; the heading can show a tick before it.
    await waitFor(() =>
      expect(dataLayerEvents('tipo_pagina').at(-1)).toEqual({
        event: 'tipo_pagina',
        tipo_pagina: 'terminos_y_condiciones',
        ruta: '/terminos-y-condiciones',
      }),
    );
  });

  it('pushes a button click when the header login button is used', async () => {
    const { user } = renderApp('/promociones');
    await user.click(await screen.findByRole('button', { name: 'Iniciar sesión' }));
    expect(dataLayerEvents('clic_boton')).toEqual([
      { event: 'clic_boton', nombre_boton: 'iniciar_sesion', seccion: 'header' },
    ]);
  });
});

describe('the session', () => {
  it('sends visitors without a session from /mi-club to /login', async () => {
    renderApp('/mi-club');
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(currentLocation()).toBe('/login');
  });

  it('keeps the member name on screen after a reload and confirms it with /api/profile', async () => {
    loginAs();
    storeHasMissions(true);
    renderApp('/mi-club');
    expect(await screen.findByRole('heading', { name: 'Hola, Ana' })).toBeInTheDocument();
    await waitFor(() => expect(sessionStore.get().isConfirmed).toBe(true));
    expect(sent.some((r) => r.path === '/api/profile')).toBe(true);
    expect(accountMenuLink('Misiones')).toBeInTheDocument();
  });

  it('shows the member in the header while logged in', async () => {
    loginAs();
    storeHasMissions(true);
    renderApp('/promociones');
    const header = await screen.findByRole('banner');
    // The name comes back from GET /api/profile after a reload.
    expect(await within(header).findByRole('link', { name: /Hola, Ana/ })).toHaveAttribute('href', '/mi-club');
    expect(within(header).queryByRole('button', { name: 'Iniciar sesión' })).not.toBeInTheDocument();
  });

  it('logs out when a reload finds the session gone (401 on /api/profile)', async () => {
    document.cookie = 'is-logged=true; Path=/';
    server.use(http.get('/api/profile', () => apiError('ERR_UNAUTHENTICATED')));
    storeHasMissions(true);
    renderApp('/mi-club');
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(currentLocation()).toBe('/login');
    expect(window.localStorage.length).toBe(0);
    await waitFor(() => expect(sent.filter((r) => r.path === '/api/logout')).toHaveLength(1));
  });

  it('logs out on a 401 from the balance', async () => {
    loginAs();
    server.use(
      http.get('/api/balance', () =>
        HttpResponse.json({ code: 'ERR_UNAUTHENTICATED', message: 'Tu sesión expiró.' }, { status: 401 }),
      ),
    );
    renderApp('/mi-club');
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(sessionStore.get().isLoggedIn).toBe(false);
  });

  it('asks for the balance once on a reload of Mi Cuenta, and shows the simulator only after it answered', async () => {
    loginAs();
    document.cookie = 'session-fresh=true; Path=/';
    let answer: () => void = () => undefined;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get('/api/balance', async () => {
        await answered;
        return HttpResponse.json({ balance: 12345, updatedAt: null });
      }),
    );
    renderApp('/mi-club');
    await screen.findByRole('heading', { name: 'Tu saldo Mi Club' });
    await waitFor(() => expect(sent.filter((r) => r.path === '/api/balance')).toHaveLength(1));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByRole('button', { name: 'Calcular' })).not.toBeInTheDocument();
    answer();
    expect(await screen.findByTestId('balance-amount')).toHaveTextContent('$12.345');
    expect(await screen.findByRole('button', { name: 'Calcular' })).toBeInTheDocument();
    expect(sent.filter((r) => r.path === '/api/balance')).toHaveLength(1);
  });

  it('does not call /api/logout when nobody was logged in', async () => {
    server.use(
      http.get('/api/profile', () => HttpResponse.json({ code: 'ERR_UNAUTHENTICATED', message: 'x' }, { status: 401 })),
    );
    renderApp('/login');
    await screen.findByLabelText('RUT');
    const { api } = await import('@/lib/api-client');
    await api.get('/api/profile').catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(sent.filter((r) => r.path === '/api/logout')).toHaveLength(0);
  });
});

describe('focus after navigation', () => {
  it('moves focus to the main heading after a client-side navigation, not on the first load', async () => {
    const { user } = renderApp('/promociones');
    const first = await screen.findByRole('heading', { level: 1, name: 'Promociones' });
    expect(first).not.toHaveFocus();
    await user.click(screen.getByRole('link', { name: 'Términos y condiciones' }));
    const heading = await screen.findByRole('heading', { level: 1, name: 'Términos y condiciones' });
    await waitFor(() => expect(heading).toHaveFocus());
    expect(heading).toHaveAttribute('tabindex', '-1');
  });

  it('waits for a lazy route to show its heading', async () => {
    loginAs();
    storeHasMissions(true);
    const { user } = renderApp('/promociones');
    await screen.findByRole('heading', { level: 1, name: 'Promociones' });
    await user.click(await within(screen.getByRole('banner')).findByRole('link', { name: /Hola, Ana/ }));
    await waitFor(() => expect(screen.getByRole('heading', { level: 1, name: 'Hola, Ana' })).toHaveFocus());
  });

  it('leaves focus where a page put it on purpose', () => {
    const input = document.body.appendChild(document.createElement('input'));
    const heading = document.body.appendChild(document.createElement('h1'));
    input.focus();
    expect(focusMainHeading(null)).toBe('left');
    expect(heading).not.toHaveFocus();
    expect(focusMainHeading(input)).toBe('focused');
    expect(heading).toHaveFocus();
    input.remove();
    heading.remove();
  });
});
