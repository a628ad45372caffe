import { screen, within } from '@testing-library/react';
import { http } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError, VERIFY_EMAIL_ACTION } from '@/testing/api-errors';
import { sentTo } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { currentLocation, dataLayerEvents, renderApp } from '@/testing/test-utils';

import { VERIFICATION_EMAIL_SENT } from './verification-email-page';

function sent() {
  return sentTo('/api/registration/verification-email');
}

async function openPage() {
  const view = renderApp('/registro/verificar-correo');
  await screen.findByRole('heading', { level: 1, name: 'Verifica tu correo electrónico' });
  return view;
}

describe('/registro/verificar-correo', () => {
  it('is where the action of ERR_EMAIL_NOT_VERIFIED at login leads, with the RUT typed there prefilled', async () => {
    // The gateway puts the typed document on the action's URL.
    const action = { ...VERIFY_EMAIL_ACTION, url: `${VERIFY_EMAIL_ACTION.url}?rut=33.333.333-3` };
    server.use(http.post('/api/login', () => apiError('ERR_EMAIL_NOT_VERIFIED', { action })));
    const view = renderApp('/login');
    await view.user.type(await screen.findByLabelText('RUT'), '333333333');
    await view.user.type(screen.getByLabelText('Contraseña'), 'MiClub2026!');
    await view.user.click(screen.getByRole('button', { name: 'Ingresar' }));
    const alert = await screen.findByRole('alert');
    await view.user.click(within(alert).getByRole('link', { name: VERIFY_EMAIL_ACTION.urlName }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Verifica tu correo electrónico' })).toBeInTheDocument();
    expect(currentLocation()).toBe('/registro/verificar-correo');
    expect(dataLayerEvents('tipo_pagina').at(-1)).toMatchObject({ tipo_pagina: 'verificar_correo' });
    expect(screen.getByLabelText('RUT')).toHaveValue('33.333.333-3');
    await view.user.click(screen.getByRole('button', { name: 'Reenviar correo' }));
    expect(await screen.findByRole('status')).toHaveTextContent(VERIFICATION_EMAIL_SENT);
    expect(sent()[0]?.body).toEqual({ user: '33.333.333-3' });
  });

  it('prefills a foreign document from its link and ignores a value that is not a document', async () => {
    renderApp('/registro/verificar-correo?documento=ab123456');
    expect(await screen.findByLabelText('Documento extranjero')).toHaveValue('AB123456');
    expect(screen.getByRole('checkbox')).toBeChecked();
  });

  it('starts with an empty RUT field when the link names no valid RUT', async () => {
    renderApp('/registro/verificar-correo?rut=12.345.678-0');
    expect(await screen.findByLabelText('RUT')).toHaveValue('');
  });

  it('sends a new link to a member waiting for verification and says the same for anyone else', async () => {
    const view = await openPage();
    await view.user.type(screen.getByLabelText('RUT'), '333333333');
    await view.user.click(screen.getByRole('button', { name: 'Reenviar correo' }));
    expect(await screen.findByRole('status')).toHaveTextContent(VERIFICATION_EMAIL_SENT);
    expect(sent()[0]?.body).toEqual({ user: '33.333.333-3' });
    expect(sent()[0]?.headers['x-miclub-csrf']).toBe('1');
    // Protected like login: without a site key (standalone) the pass-through token.
    expect(sent()[0]?.headers['recaptcha-token']).toBe('standalone');

    // 12.345.678-5 belongs to nobody: the page reads the same and nothing is mailed.
    await view.user.clear(screen.getByLabelText('RUT'));
    await view.user.type(screen.getByLabelText('RUT'), '123456785');
    await view.user.click(screen.getByRole('button', { name: 'Reenviar correo' }));
    expect(await screen.findByRole('status')).toHaveTextContent(VERIFICATION_EMAIL_SENT);
    expect(sent()).toHaveLength(2);
  });

  it('puts a RUT with a wrong check digit under the field without calling the gateway', async () => {
    const view = await openPage();
    await view.user.type(screen.getByLabelText('RUT'), '333333334');
    await view.user.click(screen.getByRole('button', { name: 'Reenviar correo' }));
    expect(await screen.findByText('El RUT ingresado no es válido.')).toBeInTheDocument();
    expect(screen.getByLabelText('RUT')).toHaveAttribute('aria-invalid', 'true');
    expect(sent()).toHaveLength(0);
  });

  it("shows the gateway's message when there were too many attempts", async () => {
    server.use(http.post('/api/registration/verification-email', () => apiError('ERR_TOO_MANY_ATTEMPTS')));
    const view = await openPage();
    await view.user.type(screen.getByLabelText('RUT'), '333333333');
    await view.user.click(screen.getByRole('button', { name: 'Reenviar correo' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Demasiados intentos. Espera unos minutos e intenta de nuevo.',
    );
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });
});
