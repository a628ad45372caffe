import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { sessionStore } from '@/lib/session';
import { apiError } from '@/testing/api-errors';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { dataLayerEvents, loginAs, renderApp, storeHasMissions } from '@/testing/test-utils';

const RESTORED =
  'Restauramos tu correo a***@example.cl y cerramos todas las sesiones de tu cuenta. Inicia sesión y cambia tu contraseña.';

function restoreRequests() {
  return sent.filter((r) => r.path === '/api/profile/email/restore');
}

/** The page's heading; the route's chunk loads slowly on a busy machine. */
function findHeading() {
  return screen.findByRole('heading', { level: 1, name: 'Restaurar tu correo' }, { timeout: 5000 });
}

describe('/restaurar-correo', () => {
  it('restores the previous email once, says every session was closed, and links to the login', async () => {
    renderApp('/restaurar-correo?token=vuelve-1');
    await findHeading();
    const success = await screen.findByText(/Restauramos tu correo/);
    expect(success.closest('[role="status"]')).toHaveTextContent(RESTORED);
    expect(within(success.closest('[role="status"]') as HTMLElement).getByText('a***@example.cl').tagName).toBe('STRONG');
    expect(screen.getByRole('link', { name: 'Iniciar sesión' })).toHaveAttribute('href', '/login');
    expect(screen.getByRole('banner')).toBeInTheDocument();
    expect(restoreRequests()).toHaveLength(1);
    expect(restoreRequests()[0]?.body).toEqual({ token: 'vuelve-1' });
    expect(restoreRequests()[0]?.headers['x-miclub-csrf']).toBe('1');
    expect(dataLayerEvents('tipo_pagina').at(-1)).toMatchObject({ tipo_pagina: 'restaurar_correo', ruta: '/restaurar-correo' });
  });

  it('logs this browser out as well, keeping the answer on screen and asking only once', async () => {
    loginAs();
    storeHasMissions(true);
    const { queryClient } = renderApp('/restaurar-correo?token=vuelve-2');
    await screen.findByText(/Restauramos tu correo/, undefined, { timeout: 5000 });
    await waitFor(() => expect(sessionStore.get().isLoggedIn).toBe(false));
    const banner = screen.getByRole('banner');
    expect(await within(banner).findByRole('button', { name: 'Iniciar sesión' })).toBeInTheDocument();
    expect(document.cookie).not.toContain('is-logged=true');
    expect(window.localStorage.length).toBe(0);
    expect(queryClient.getQueryData(['profile'])).toBeUndefined();
    await waitFor(() => expect(sent.filter((r) => r.path === '/api/logout')).toHaveLength(1));
    // The result stays; the spent token is never sent again.
    expect(screen.getByText(/Restauramos tu correo/)).toBeInTheDocument();
    expect(restoreRequests()).toHaveLength(1);
    expect(screen.queryByText('Tu sesión expiró. Vuelve a iniciar sesión.')).not.toBeInTheDocument();
  });

  it("shows the gateway's message for a link that is not valid (404 ERR_CONFIRMATION_INVALID)", async () => {
    server.use(
      http.post('/api/profile/email/restore', () =>
        apiError('ERR_CONFIRMATION_INVALID', { message: 'El enlace no es válido o ya expiró.' }),
      ),
    );
    renderApp('/restaurar-correo?token=gastado');
    await findHeading();
    expect(await screen.findByRole('alert')).toHaveTextContent('El enlace no es válido o ya expiró.');
    expect(screen.queryByRole('button', { name: 'Reintentar' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Iniciar sesión' })).toHaveAttribute('href', '/login');
  });

  it('shows that it is restoring while the answer is on its way', async () => {
    server.use(
      http.post('/api/profile/email/restore', async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    renderApp('/restaurar-correo?token=lento');
    const heading = await findHeading();
    expect(await screen.findByText('Restaurando tu correo…')).toBeInTheDocument();
    expect(heading.closest('section')).toHaveAttribute('aria-busy', 'true');
  });

  it('says the link is not valid without asking when it has no token', async () => {
    renderApp('/restaurar-correo');
    await findHeading();
    expect(await screen.findByRole('alert')).toHaveTextContent('El enlace para restaurar tu correo no es válido o ya expiró.');
    expect(restoreRequests()).toHaveLength(0);
  });

  it('can be tried again when the gateway did not answer', async () => {
    server.use(http.post('/api/profile/email/restore', () => apiError('ERR_UNAVAILABLE')));
    const { user } = renderApp('/restaurar-correo?token=vuelve-3');
    expect(await screen.findByRole('alert', undefined, { timeout: 5000 })).toHaveTextContent(
      'El servicio no está disponible en este momento.',
    );
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByText(/Restauramos tu correo/)).toBeInTheDocument();
  });
});
