import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { sessionStore } from '@/lib/session';
import { apiError, FIELD_MESSAGES } from '@/testing/api-errors';
import { DEMO_PASSWORD } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { contextSays, currentLocation, renderAccountSection } from '@/testing/test-utils';

const NEW_PASSWORD = 'una frase bastante larga';

async function openPasswordChange() {
  contextSays({ changePasswordEnable: true });
  const view = await renderAccountSection('Mis Datos');
  await screen.findByRole('heading', { level: 3, name: 'Cambiar contraseña' });
  return view;
}

function passwordRequests() {
  return sent.filter((r) => r.path === '/api/profile/password');
}

async function submit(user: Awaited<ReturnType<typeof openPasswordChange>>['user'], current: string, next: string) {
  if (current) await user.type(screen.getByLabelText('Contraseña actual'), current);
  if (next) await user.type(screen.getByLabelText('Nueva contraseña'), next);
  await user.click(screen.getByRole('button', { name: 'Cambiar contraseña' }));
}

describe('the password change', () => {
  it('is not offered while changePasswordEnable is off', async () => {
    await renderAccountSection('Mis Datos');
    await screen.findByLabelText('Correo electrónico');
    expect(screen.queryByRole('heading', { name: 'Cambiar contraseña' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Nueva contraseña')).not.toBeInTheDocument();
  });

  it('shows the rules as help text of the new password, without composition rules', async () => {
    await openPasswordChange();
    const description = screen.getByLabelText('Nueva contraseña').getAttribute('aria-describedby') ?? '';
    const hint = document.getElementById(description.split(' ')[0] ?? '');
    expect(hint).toHaveTextContent(/entre 8 y 64 caracteres/);
    expect(hint).toHaveTextContent(/no necesitas combinar mayúsculas, números ni símbolos/);
    expect(hint).toHaveTextContent(/Evita contraseñas comunes/);
  });

  it('shows and hides what is typed', async () => {
    const { user } = await openPasswordChange();
    const field = screen.getByLabelText('Nueva contraseña');
    expect(field).toHaveAttribute('type', 'password');
    const toggle = screen.getByRole('button', { name: 'Mostrar nueva contraseña' });
    await user.click(toggle);
    expect(field).toHaveAttribute('type', 'text');
    expect(toggle).toHaveAccessibleName('Ocultar nueva contraseña');
    await user.click(screen.getByRole('button', { name: 'Ocultar nueva contraseña' }));
    expect(field).toHaveAttribute('type', 'password');
  });

  it.each([
    ['', NEW_PASSWORD, 'Contraseña actual', 'Ingresa tu contraseña actual.'],
    [DEMO_PASSWORD, 'corta', 'Nueva contraseña', 'La contraseña debe tener al menos 8 caracteres.'],
    [DEMO_PASSWORD, 'x'.repeat(65), 'Nueva contraseña', 'La contraseña puede tener hasta 64 caracteres.'],
    [DEMO_PASSWORD, DEMO_PASSWORD, 'Nueva contraseña', 'La nueva contraseña debe ser distinta de la actual.'],
  ])('checks %j → %j before asking the gateway', async (current, next, label, message) => {
    const { user } = await openPasswordChange();
    await submit(user, current, next);
    const field = screen.getByLabelText(label);
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription(expect.stringContaining(message));
    expect(field).toHaveFocus();
    expect(passwordRequests()).toHaveLength(0);
  });

  it('puts ERR_WRONG_PASSWORD under the current password and does not log out on that 422', async () => {
    server.use(http.post('/api/profile/password', () => apiError('ERR_WRONG_PASSWORD', { field: 'currentPassword' })));
    const { user } = await openPasswordChange();
    await submit(user, 'NoEsMiClave1', NEW_PASSWORD);
    const field = screen.getByLabelText('Contraseña actual');
    await waitFor(() => expect(field).toHaveAccessibleDescription('La contraseña actual no es correcta.'));
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(passwordRequests()[0]?.headers['x-miclub-csrf']).toBe('1');
    expect(sessionStore.get().isLoggedIn).toBe(true);
    expect(currentLocation()).toBe('/mi-club/mis-datos');
    expect(sent.filter((r) => r.path === '/api/logout')).toHaveLength(0);
  });

  it("puts ERR_WEAK_PASSWORD's rule under the new password", async () => {
    server.use(
      http.post('/api/profile/password', () =>
        apiError('ERR_WEAK_PASSWORD', { field: 'newPassword', message: FIELD_MESSAGES.passwordCommon }),
      ),
    );
    const { user } = await openPasswordChange();
    await submit(user, DEMO_PASSWORD, 'contraseña');
    await waitFor(() =>
      expect(screen.getByLabelText('Nueva contraseña')).toHaveAccessibleDescription(
        expect.stringContaining('Esa contraseña es muy común. Elige otra más difícil de adivinar.'),
      ),
    );
    expect(sessionStore.get().isLoggedIn).toBe(true);
  });

  it('puts a 422 without a field under the field its code implies', async () => {
    server.use(
      http.post('/api/profile/password', () =>
        HttpResponse.json({ code: 'ERR_WEAK_PASSWORD', message: 'la nueva contraseña no cumple los requisitos.' }, { status: 422 }),
      ),
    );
    const { user } = await openPasswordChange();
    await submit(user, DEMO_PASSWORD, NEW_PASSWORD);
    await waitFor(() =>
      expect(screen.getByLabelText('Nueva contraseña')).toHaveAccessibleDescription(
        expect.stringContaining('La nueva contraseña no cumple los requisitos.'),
      ),
    );
  });

  it("shows the gateway's message for other failures", async () => {
    server.use(http.post('/api/profile/password', () => apiError('ERR_TOO_MANY_ATTEMPTS')));
    const { user } = await openPasswordChange();
    await submit(user, DEMO_PASSWORD, NEW_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent('Demasiados intentos. Espera unos minutos e intenta de nuevo.');
  });

  it('tells the member to log in again, then logs out to /login', async () => {
    const { user, queryClient } = await openPasswordChange();
    await submit(user, DEMO_PASSWORD, NEW_PASSWORD);
    const dialog = await screen.findByRole('dialog', { name: 'Cambiaste tu contraseña' });
    expect(dialog).toHaveTextContent('Tu contraseña fue cambiada.');
    expect(dialog).toHaveTextContent('debes iniciar sesión nuevamente con tu nueva contraseña');
    expect(passwordRequests()[0]?.body).toEqual({ currentPassword: DEMO_PASSWORD, newPassword: NEW_PASSWORD });
    // Nothing secret stays in the form behind the dialog.
    expect(screen.getByLabelText('Nueva contraseña', { selector: 'input' })).toHaveValue('');

    await user.click(within(dialog).getByRole('button', { name: 'Iniciar sesión' }));
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(currentLocation()).toBe('/login');
    expect(sessionStore.get().isLoggedIn).toBe(false);
    expect(window.localStorage.length).toBe(0);
    expect(queryClient.getQueryData(['profile'])).toBeUndefined();
    await waitFor(() => expect(sent.filter((r) => r.path === '/api/logout')).toHaveLength(1));
  });

  it('logs out as well when the notice is closed with Escape', async () => {
    const { user } = await openPasswordChange();
    await submit(user, DEMO_PASSWORD, NEW_PASSWORD);
    await screen.findByRole('dialog', { name: 'Cambiaste tu contraseña' });
    await user.keyboard('{Escape}');
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(sessionStore.get().isLoggedIn).toBe(false);
  });
});
