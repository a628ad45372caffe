import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError, FIELD_MESSAGES } from '@/testing/api-errors';
import { recoveryStarted } from '@/testing/fixtures/recovery';
import { diegoProfile } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { currentLocation, dataLayerEvents, loginAs, renderApp } from '@/testing/test-utils';

import { RECOVERY_GENERIC_ERROR } from '../utils/recovery-rules';

import { RESET_DONE_MESSAGE } from './password-recovery-flow';

const NEW_PASSWORD = 'una frase bastante larga';
type View = ReturnType<typeof renderApp>;

async function openRecovery() {
  const view = renderApp('/recuperar-contrasena');
  await screen.findByRole('heading', { level: 1, name: 'Recupera tu contraseña' });
  return view;
}

/** Step 1 with `typed`, waiting for step 2. */
async function requestCode(view: View, typed = '444444444') {
  await view.user.type(screen.getByLabelText('RUT'), typed);
  await view.user.click(screen.getByRole('button', { name: 'Enviar código' }));
  await screen.findByRole('heading', { level: 2, name: 'Paso 2 de 2: código y nueva contraseña' });
}

async function submitReset(view: View, code: string, password: string) {
  const codeField = screen.getByLabelText('Código de verificación');
  await view.user.clear(codeField);
  if (code) await view.user.type(codeField, code);
  const passwordField = screen.getByLabelText('Nueva contraseña');
  await view.user.clear(passwordField);
  if (password) await view.user.type(passwordField, password);
  await view.user.click(screen.getByRole('button', { name: 'Cambiar contraseña' }));
}

/** The code the recovery mail carried, as the member types it (the gateway checks it, not the tests). */
function recoveryCode(): string {
  return '654321';
}

const RECOVERY_MESSAGE = recoveryStarted.message;

function describedText(element: HTMLElement): string {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

function resetRequests() {
  return sent.filter((r) => r.path === '/api/password-recovery/reset');
}

describe('step 1 of the password recovery', () => {
  it('replaces the coming-soon placeholder with step 1', async () => {
    await openRecovery();
    expect(screen.getByRole('heading', { level: 2, name: 'Paso 1 de 2: tu RUT o documento' })).toBeInTheDocument();
    expect(screen.queryByText('Próximamente')).not.toBeInTheDocument();
    expect(dataLayerEvents('tipo_pagina')).toContainEqual(
      expect.objectContaining({ tipo_pagina: 'recuperar_contrasena', ruta: '/recuperar-contrasena' }),
    );
  });

  it('formats the RUT as it is typed and keeps a foreign document as typed', async () => {
    const view = await openRecovery();
    await view.user.type(screen.getByLabelText('RUT'), '444444444');
    expect(screen.getByLabelText('RUT')).toHaveValue('44.444.444-4');
    await view.user.click(screen.getByLabelText('No tengo RUT, ingresaré con documento extranjero'));
    const foreign = screen.getByLabelText('Documento extranjero');
    await view.user.type(foreign, 'ab123456');
    expect(foreign).toHaveValue('AB123456');
  });

  it('refuses an invalid RUT under the field, accessibly, before calling the gateway', async () => {
    const view = await openRecovery();
    await view.user.type(screen.getByLabelText('RUT'), '123456789');
    await view.user.click(screen.getByRole('button', { name: 'Enviar código' }));
    const field = screen.getByLabelText('RUT');
    await waitFor(() => expect(field).toHaveAttribute('aria-invalid', 'true'));
    expect(describedText(field)).toContain('El RUT ingresado no es válido.');
    expect(sent.filter((r) => r.path === '/api/password-recovery')).toHaveLength(0);
  });

  it('asks for the RUT, or for a long enough foreign document', async () => {
    const view = await openRecovery();
    await view.user.click(screen.getByRole('button', { name: 'Enviar código' }));
    expect(await screen.findByText('Ingresa tu RUT.')).toBeInTheDocument();
    await view.user.click(screen.getByLabelText('No tengo RUT, ingresaré con documento extranjero'));
    await view.user.type(screen.getByLabelText('Documento extranjero'), 'AB1');
    await view.user.click(screen.getByRole('button', { name: 'Enviar código' }));
    expect(await screen.findByText('El número de documento debe tener al menos 5 caracteres.')).toBeInTheDocument();
    expect(sent.filter((r) => r.path === '/api/password-recovery')).toHaveLength(0);
  });

  it('sends the user with the recaptcha and CSRF headers, shows the neutral message and focuses step 2', async () => {
    const view = await openRecovery();
    await requestCode(view);
    const request = sent.find((r) => r.path === '/api/password-recovery');
    expect(request?.body).toEqual({ user: '44.444.444-4' });
    expect(request?.headers['recaptcha-token']).toBe('standalone');
    expect(request?.headers['x-miclub-csrf']).toBe('1');
    expect(screen.getByRole('status')).toHaveTextContent(RECOVERY_MESSAGE);
    expect(screen.getByRole('heading', { level: 2, name: /Paso 2 de 2/ })).toHaveFocus();
    expect(dataLayerEvents('recuperar_contrasena_paso_1')).toEqual([
      { event: 'recuperar_contrasena_paso_1', tipo_documento: 'rut' },
    ]);
  });

  it('shows the same neutral message for a RUT that belongs to nobody', async () => {
    const view = await openRecovery();
    await requestCode(view, '123456785');
    expect(screen.getByRole('status')).toHaveTextContent(RECOVERY_MESSAGE);
  });

  it("puts the gateway's field error under the RUT field", async () => {
    server.use(
      http.post('/api/password-recovery', () =>
        apiError('ERR_INVALID_RUT', { field: 'user', message: 'el RUT ingresado no es válido.' }),
      ),
    );
    const view = await openRecovery();
    await view.user.type(screen.getByLabelText('RUT'), '444444444');
    await view.user.click(screen.getByRole('button', { name: 'Enviar código' }));
    const field = screen.getByLabelText('RUT');
    await waitFor(() => expect(field).toHaveAttribute('aria-invalid', 'true'));
    expect(describedText(field)).toContain('El RUT ingresado no es válido.');
  });

  it("shows other failures as an alert with the server's message, or a generic one for a 500", async () => {
    server.use(http.post('/api/password-recovery', () => apiError('ERR_TOO_MANY_ATTEMPTS')));
    const view = await openRecovery();
    await view.user.type(screen.getByLabelText('RUT'), '444444444');
    await view.user.click(screen.getByRole('button', { name: 'Enviar código' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Demasiados intentos. Espera unos minutos e intenta de nuevo.',
    );
    server.use(http.post('/api/password-recovery', () => apiError('ERR_INTERNAL')));
    await view.user.click(screen.getByRole('button', { name: 'Enviar código' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent(RECOVERY_GENERIC_ERROR));
  });

  it('shows the button as busy while the gateway answers', async () => {
    server.use(
      http.post('/api/password-recovery', async () => {
        await delay(100);
        return HttpResponse.json(recoveryStarted);
      }),
    );
    const view = await openRecovery();
    await view.user.type(screen.getByLabelText('RUT'), '444444444');
    await view.user.click(screen.getByRole('button', { name: 'Enviar código' }));
    expect(screen.getByRole('button', { name: 'Enviar código' })).toHaveAttribute('aria-busy', 'true');
    await screen.findByRole('heading', { level: 2, name: /Paso 2 de 2/ });
  });

  it('is reached from the login page', async () => {
    const view = renderApp('/login');
    await view.user.click(await screen.findByRole('link', { name: '¿Olvidaste tu contraseña?' }));
    await screen.findByRole('heading', { level: 1, name: 'Recupera tu contraseña' });
    expect(currentLocation()).toBe('/recuperar-contrasena');
  });
});

describe('step 2 of the password recovery', () => {
  it('checks the code and the password length with the gateway messages before sending', async () => {
    const view = await openRecovery();
    await requestCode(view);
    await submitReset(view, '12', 'corta');
    const code = screen.getByLabelText('Código de verificación');
    expect(code).toHaveAttribute('aria-invalid', 'true');
    expect(describedText(code)).toContain('Ingresa los 6 dígitos del código.');
    const password = screen.getByLabelText('Nueva contraseña');
    expect(password).toHaveAttribute('aria-invalid', 'true');
    expect(describedText(password)).toContain(FIELD_MESSAGES.passwordShort);
    expect(code).toHaveFocus();

    await submitReset(view, recoveryCode(), 'x'.repeat(65));
    expect(describedText(screen.getByLabelText('Nueva contraseña'))).toContain(FIELD_MESSAGES.passwordLong);
    expect(resetRequests()).toHaveLength(0);
    expect(dataLayerEvents('recuperar_contrasena_paso_2')).toHaveLength(0);
  });

  it('shows the password rules as help text and lets the member show the password', async () => {
    const view = await openRecovery();
    await requestCode(view);
    const password = screen.getByLabelText('Nueva contraseña');
    expect(describedText(password)).toContain('Usa entre 8 y 64 caracteres.');
    expect(password).toHaveAttribute('type', 'password');
    await view.user.click(screen.getByRole('button', { name: 'Mostrar nueva contraseña' }));
    expect(password).toHaveAttribute('type', 'text');
    await view.user.click(screen.getByRole('button', { name: 'Ocultar nueva contraseña' }));
    expect(password).toHaveAttribute('type', 'password');
  });

  it('puts a wrong code under the code field, empties it and keeps the password', async () => {
    const view = await openRecovery();
    await requestCode(view);
    server.use(http.post('/api/password-recovery/reset', () => apiError('ERR_OTP_INVALID', { field: 'code' })));
    const wrong = recoveryCode() === '000000' ? '111111' : '000000';
    await submitReset(view, wrong, NEW_PASSWORD);
    const code = screen.getByLabelText('Código de verificación');
    await waitFor(() => expect(code).toHaveAttribute('aria-invalid', 'true'));
    expect(describedText(code)).toContain('El código ingresado no es correcto.');
    expect(code).toHaveValue('');
    expect(code).toHaveFocus();
    expect(screen.getByLabelText('Nueva contraseña')).toHaveValue(NEW_PASSWORD);
    expect(screen.queryByText(RECOVERY_GENERIC_ERROR)).not.toBeInTheDocument();
  });

  it("puts a weak password under the password field with the gateway's rule", async () => {
    const view = await openRecovery();
    await requestCode(view);
    server.use(
      http.post('/api/password-recovery/reset', () =>
        apiError('ERR_WEAK_PASSWORD', { field: 'newPassword', message: FIELD_MESSAGES.passwordCommon }),
      ),
    );
    await submitReset(view, recoveryCode(), '12345678');
    const password = screen.getByLabelText('Nueva contraseña');
    await waitFor(() => expect(password).toHaveAttribute('aria-invalid', 'true'));
    expect(describedText(password)).toContain(FIELD_MESSAGES.passwordCommon);
    expect(password).toHaveFocus();
  });

  it('sends the member back to step 1 with the message when the code expired', async () => {
    const view = await openRecovery();
    await requestCode(view);
    server.use(http.post('/api/password-recovery/reset', () => apiError('ERR_OTP_EXPIRED')));
    await submitReset(view, '123456', NEW_PASSWORD);
    const heading = await screen.findByRole('heading', { level: 2, name: 'Paso 1 de 2: tu RUT o documento' });
    expect(heading).toHaveFocus();
    expect(screen.getByRole('alert')).toHaveTextContent('El código expiró.');
    expect(screen.getByLabelText('RUT')).toHaveValue('44.444.444-4');
  });

  it('sends the member back to step 1 after too many wrong codes', async () => {
    const view = await openRecovery();
    await requestCode(view);
    const wrong = recoveryCode() === '000000' ? '111111' : '000000';
    // The gateway counts the attempts; here it answers the one that ends the recovery.
    server.use(http.post('/api/password-recovery/reset', () => apiError('ERR_OTP_TOO_MANY_ATTEMPTS')));
    await submitReset(view, wrong, NEW_PASSWORD);
    await screen.findByRole('heading', { level: 2, name: 'Paso 1 de 2: tu RUT o documento' });
    expect(screen.getByRole('alert')).toHaveTextContent('Superaste el número de intentos.');
  });

  it("shows any other failure as an alert with the server's message", async () => {
    const view = await openRecovery();
    await requestCode(view);
    server.use(http.post('/api/password-recovery/reset', () => apiError('ERR_UNAVAILABLE')));
    await submitReset(view, recoveryCode(), NEW_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'El servicio no está disponible en este momento. Intenta de nuevo más tarde.',
    );
    expect(screen.getByLabelText('Código de verificación')).not.toHaveAttribute('aria-invalid');
  });

  it('counts down the resend cooldown with the button disabled', async () => {
    const view = await openRecovery();
    await requestCode(view);
    expect(screen.getByRole('button', { name: 'Reenviar código' })).toBeDisabled();
    expect(screen.getByText(/Podrás pedir un nuevo código en (30|29) segundos\./)).toBeInTheDocument();
  });

  it('resends a code once the cooldown is over; only the new code works', async () => {
    server.use(
      http.post('/api/password-recovery', () =>
        HttpResponse.json({ message: RECOVERY_MESSAGE, expiresInSeconds: 600, resendAfterSeconds: 0 }),
      ),
    );
    const view = await openRecovery();
    await requestCode(view);
    const resend = screen.getByRole('button', { name: 'Reenviar código' });
    await waitFor(() => expect(resend).toBeEnabled());
    await view.user.click(resend);
    expect(
      await screen.findByText('Si el RUT o documento está registrado, enviamos un nuevo código.'),
    ).toBeInTheDocument();
    expect(sent.filter((r) => r.path === '/api/password-recovery/resend')).toHaveLength(1);
    expect(screen.getByRole('button', { name: 'Reenviar código' })).toBeDisabled();

    // The old code is refused (the gateway's rule), the new one accepted.
    server.use(
      http.post('/api/password-recovery/reset', () => apiError('ERR_OTP_INVALID', { field: 'code' }), { once: true }),
    );
    await submitReset(view, '111111', NEW_PASSWORD);
    await waitFor(() => expect(screen.getByLabelText('Código de verificación')).toHaveAttribute('aria-invalid', 'true'));
    await submitReset(view, recoveryCode(), NEW_PASSWORD);
    await screen.findByText(RESET_DONE_MESSAGE);
    expect(dataLayerEvents('recuperar_contrasena_exitoso')).toEqual([
      { event: 'recuperar_contrasena_exitoso', reenvios: 1 },
    ]);
  });

  it('goes back to step 1 when a resend finds no pending recovery', async () => {
    server.use(
      http.post('/api/password-recovery', () =>
        HttpResponse.json({ message: RECOVERY_MESSAGE, expiresInSeconds: 600, resendAfterSeconds: 0 }),
      ),
    );
    server.use(http.post('/api/password-recovery/resend', () => apiError('ERR_OTP_EXPIRED')));
    const view = await openRecovery();
    await requestCode(view);
    const resend = screen.getByRole('button', { name: 'Reenviar código' });
    await waitFor(() => expect(resend).toBeEnabled());
    await view.user.click(resend);
    await screen.findByRole('heading', { level: 2, name: 'Paso 1 de 2: tu RUT o documento' });
    expect(screen.getByRole('alert')).toHaveTextContent('El código expiró.');
  });

  it('changes the password, says so with a way to log in, and focuses the notice', async () => {
    const view = await openRecovery();
    await requestCode(view);
    await submitReset(view, recoveryCode(), NEW_PASSWORD);
    const heading = await screen.findByRole('heading', { level: 2, name: 'Contraseña cambiada' });
    expect(heading).toHaveFocus();
    expect(screen.getByText(RESET_DONE_MESSAGE)).toBeInTheDocument();
    expect(resetRequests()[0]?.body).toEqual({ code: expect.stringMatching(/^\d{6}$/), newPassword: NEW_PASSWORD });
    expect(resetRequests()[0]?.headers['x-miclub-csrf']).toBe('1');
    expect(dataLayerEvents('recuperar_contrasena_paso_2')).toEqual([
      { event: 'recuperar_contrasena_paso_2', reenvios: 0 },
    ]);
    expect(dataLayerEvents('recuperar_contrasena_exitoso')).toHaveLength(1);

    await view.user.click(screen.getByRole('link', { name: 'Iniciar sesión' }));
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(currentLocation()).toBe('/login');
  });

  it('clears the logged-in display state, since every session was revoked', async () => {
    loginAs(diegoProfile);
    const view = await openRecovery();
    expect(await screen.findByRole('link', { name: 'Hola, Diego' })).toBeInTheDocument();
    await requestCode(view);
    await submitReset(view, recoveryCode(), NEW_PASSWORD);
    await screen.findByText(RESET_DONE_MESSAGE);
    const banner = screen.getByRole('banner');
    await waitFor(() => expect(within(banner).queryByText('Hola, Diego')).not.toBeInTheDocument());
    expect(window.localStorage.length).toBe(0);
    expect(within(banner).getByRole('button', { name: 'Iniciar sesión' })).toBeInTheDocument();
    expect(document.cookie).not.toContain('is-logged=true');
  });
});
