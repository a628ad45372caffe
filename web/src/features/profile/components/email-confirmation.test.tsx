import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { anaProfile, DEMO_PASSWORD } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { dataLayerEvents, renderApp, renderAccountSection } from '@/testing/test-utils';

function confirmRequests() {
  return sent.filter((r) => r.path === '/api/profile/email/confirm');
}

describe('/confirmar-correo', () => {
  it('confirms the email of the link once and shows it masked, with header, footer and a way to log in, for anyone', async () => {
    server.use(http.post('/api/profile/email/confirm', () => HttpResponse.json({ maskedEmail: 'c***@example.cl', alreadyConfirmed: false })));
    renderApp('/confirmar-correo?token=abc123');
    expect(await screen.findByRole('heading', { level: 1, name: 'Confirmación de correo' })).toBeInTheDocument();
    const success = await screen.findByText(/Confirmamos tu correo/);
    expect(success.closest('[role="status"]')).toHaveTextContent('¡Listo! Confirmamos tu correo c***@example.cl.');
    expect(success.closest('[role="status"]')).toHaveTextContent('Ya puedes iniciar sesión en Mi Club.');
    expect(screen.getByRole('link', { name: 'Iniciar sesión' })).toHaveAttribute('href', '/login');
    expect(screen.queryByRole('link', { name: 'Ir a Mi Club' })).not.toBeInTheDocument();
    expect(screen.getByRole('banner')).toBeInTheDocument();
    expect(screen.getByRole('contentinfo')).toBeInTheDocument();
    expect(confirmRequests()[0]?.body).toEqual({ token: 'abc123' });
    expect(confirmRequests()).toHaveLength(1);
    expect(confirmRequests()[0]?.body).toEqual({ token: 'abc123' });
    expect(confirmRequests()[0]?.headers['x-miclub-csrf']).toBe('1');
    expect(dataLayerEvents('tipo_pagina').at(-1)).toMatchObject({ tipo_pagina: 'confirmar_correo' });
  });

  it('says a link opened a second time already confirmed the email and offers to log in', async () => {
    server.use(
      http.post('/api/profile/email/confirm', () => HttpResponse.json({ maskedEmail: '', alreadyConfirmed: true })),
    );
    renderApp('/confirmar-correo?token=usado');
    const status = (await screen.findByText(/Tu correo ya está confirmado/)).closest('[role="status"]');
    expect(status).toHaveTextContent('Tu correo ya está confirmado. Ya puedes iniciar sesión en Mi Club.');
    expect(status).not.toHaveTextContent('no es válido');
    expect(screen.getByRole('link', { name: 'Iniciar sesión' })).toHaveAttribute('href', '/login');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it("shows the gateway's message for a link that is not valid", async () => {
    server.use(http.post('/api/profile/email/confirm', () => apiError('ERR_CONFIRMATION_INVALID')));
    renderApp('/confirmar-correo?token=gastado');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'El enlace de confirmación no es válido o ya expiró. Pide uno nuevo.',
    );
    expect(screen.queryByRole('button', { name: 'Reintentar' })).not.toBeInTheDocument();
    // Without a session, a new link is asked for by RUT or document.
    expect(screen.getByRole('link', { name: 'Pedir un nuevo enlace' })).toHaveAttribute(
      'href',
      '/registro/verificar-correo',
    );
  });

  it('says the link is not valid without asking when it has no token', async () => {
    renderApp('/confirmar-correo');
    expect(await screen.findByRole('alert')).toHaveTextContent('El enlace de confirmación no es válido o ya expiró.');
    expect(confirmRequests()).toHaveLength(0);
  });

  it('can be tried again when the gateway did not answer', async () => {
    server.use(http.post('/api/profile/email/confirm', () => apiError('ERR_UNAVAILABLE')));
    const { user } = renderApp('/confirmar-correo?token=abc123');
    expect(await screen.findByRole('alert')).toHaveTextContent('El servicio no está disponible en este momento.');
    server.use(http.post('/api/profile/email/confirm', () => HttpResponse.json({ maskedEmail: 'c***@example.cl', alreadyConfirmed: false })));
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByText(/Confirmamos tu correo/)).toHaveTextContent('Confirmamos tu correo c***@example.cl');
  });

  it('confirms a new email changed in Mis Datos, whose profile then says confirmed', async () => {
    const changed = { ...anaProfile, email: 'ana.nueva@example.cl', email_confirmed: false };
    server.use(http.put('/api/profile', () => HttpResponse.json({ user: changed, emailConfirmationSent: true })));
    const first = await renderAccountSection('Mis Datos');
    const email = await screen.findByLabelText('Correo electrónico');
    await first.user.clear(email);
    await first.user.type(email, 'ana.nueva@example.cl');
    await first.user.type(screen.getByLabelText('Contraseña actual', { selector: 'input' }), DEMO_PASSWORD);
    await first.user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    await waitFor(() => expect(screen.getByTestId('email-status')).toHaveTextContent('Sin confirmar'));
    const token = 'token-1-ana';
    first.unmount();

    // The member opens the link in the same browser, still logged in.
    renderApp(`/confirmar-correo?token=${encodeURIComponent(token)}`, { queryClient: first.queryClient });
    expect(await screen.findByText(/Confirmamos tu correo/)).toHaveTextContent('Confirmamos tu correo a***@example.cl');
    expect(screen.getByRole('link', { name: 'Ir a Mi Club' })).toHaveAttribute('href', '/mi-club');
    await waitFor(() =>
      expect(first.queryClient.getQueryData<{ email_confirmed: boolean }>(['profile'])?.email_confirmed).toBe(true),
    );
  });
});
