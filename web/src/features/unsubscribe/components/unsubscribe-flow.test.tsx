import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { apiError, REGISTER_ACTION } from '@/testing/api-errors';
import { MOCK_NOW } from '@/testing/fixtures/account';
import { DEMO_PASSWORD } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { currentLocation, dataLayerEvents, renderAccountSection } from '@/testing/test-utils';

import { UNSUBSCRIBE_FAILED } from '../utils/unsubscribe-rules';

import { CONFIRM_TITLE, UNSUBSCRIBE_TITLE } from './unsubscribe-flow';

type View = Awaited<ReturnType<typeof renderAccountSection>>;

const STEP_1 = 'Paso 1 de 2: confirma que eres tú';
const STEP_2 = 'Paso 2 de 2: cuéntanos por qué te vas';

afterEach(() => {
  vi.useRealTimers();
});

function requests(path: string) {
  return sent.filter((r) => r.path === path);
}

function describedText(element: HTMLElement): string {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

/** Ana in Mis Datos, then "Darme de baja de Mi Club". */
async function openUnsubscribe(): Promise<View> {
  const view = await renderAccountSection('Mis Datos');
  await view.user.click(await screen.findByRole('button', { name: 'Darme de baja de Mi Club' }));
  await screen.findByRole('heading', { level: 2, name: UNSUBSCRIBE_TITLE });
  return view;
}

function passwordInput(): HTMLInputElement {
  return screen.getByLabelText('Contraseña actual', { selector: 'input' });
}

async function submitIdentity(view: View, typed = '111111111', email = 'ana@example.cl', password = DEMO_PASSWORD) {
  await view.user.type(screen.getByLabelText('RUT'), typed);
  await view.user.type(screen.getByLabelText('Correo electrónico'), email);
  if (password) await view.user.type(passwordInput(), password);
  await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
}

async function reachReasons(view: View) {
  await submitIdentity(view);
  await screen.findByRole('heading', { level: 3, name: STEP_2 });
  await screen.findByRole('radio', { name: 'Otro motivo' });
}

describe('step 1 of the unsubscribe', () => {
  it('opens from Mis Datos without touching the account menu, and "Cancelar" goes back', async () => {
    const view = await openUnsubscribe();
    const menu = screen.getByRole('navigation', { name: 'Menú de mi cuenta' });
    expect(
      [...within(menu).getAllByRole('link'), ...within(menu).getAllByRole('button')].map((entry) => [
        entry.textContent,
        entry.getAttribute('data-menu-index'),
      ]),
    ).toEqual([
      ['Mi Cuenta', '0'],
      ['Mis Datos', '1'],
      ['Mis Movimientos', '2'],
      ['Términos y Condiciones', '3'],
      ['Misiones', '4'],
      ['Mi Tarjeta', '5'],
      ['Cerrar sesión', null],
    ]);
    expect(within(menu).getByRole('link', { name: 'Mis Datos' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByRole('heading', { level: 3, name: STEP_1 })).toBeInTheDocument();

    await view.user.click(screen.getByRole('button', { name: 'Cancelar' }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Mis Datos' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Darme de baja de Mi Club' })).toBeInTheDocument();
  });

  it('checks the RUT and the email before calling the gateway', async () => {
    const view = await openUnsubscribe();
    await submitIdentity(view, '111111112', 'ana@');
    expect(describedText(screen.getByLabelText('RUT'))).toContain('El RUT ingresado no es válido.');
    expect(describedText(screen.getByLabelText('Correo electrónico'))).toContain('Ingresa un correo electrónico válido.');
    expect(screen.getByLabelText('RUT')).toHaveFocus();
    expect(requests('/api/unsubscribe/validate')).toHaveLength(0);
  });

  it('asks for the current password beside the document and email, for a password manager to fill', async () => {
    const view = await openUnsubscribe();
    const password = passwordInput();
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toHaveAttribute('autocomplete', 'current-password');
    await submitIdentity(view, '111111111', 'ana@example.cl', '');
    expect(describedText(password)).toContain('Ingresa tu contraseña actual.');
    expect(password).toHaveAttribute('aria-invalid', 'true');
    expect(password).toHaveFocus();
    expect(requests('/api/unsubscribe/validate')).toHaveLength(0);
    expect(dataLayerEvents('desuscripción_fallida')).toEqual([]);
  });

  it('shows a wrong password (422 ERR_WRONG_PASSWORD) under the password field and stays at step 1', async () => {
    const sent: unknown[] = [];
    server.use(
      http.post('/api/unsubscribe/validate', async ({ request }) => {
        sent.push(await request.json());
        return apiError('ERR_WRONG_PASSWORD', { field: 'currentPassword' });
      }),
    );
    const view = await openUnsubscribe();
    await submitIdentity(view, '111111111', 'ana@example.cl', 'NoEsMiClave1');
    await waitFor(() => expect(passwordInput()).toHaveAttribute('aria-invalid', 'true'));
    expect(describedText(passwordInput())).toContain('La contraseña actual no es correcta.');
    expect(passwordInput()).toHaveFocus();
    expect(screen.getByRole('heading', { level: 3, name: STEP_1 })).toBeInTheDocument();
    expect(sent).toEqual([{ user: '11.111.111-1', email: 'ana@example.cl', currentPassword: 'NoEsMiClave1' }]);
    expect(dataLayerEvents('desuscripción_fallida')).toEqual([
      { event: 'desuscripción_fallida', paso: 1, codigo_error: 'ERR_WRONG_PASSWORD' },
    ]);

    // Typing again clears the message; the right password moves on.
    server.resetHandlers();
    await view.user.clear(passwordInput());
    expect(passwordInput()).not.toHaveAttribute('aria-invalid');
    await view.user.type(passwordInput(), DEMO_PASSWORD);
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(await screen.findByRole('heading', { level: 3, name: STEP_2 })).toBeInTheDocument();
  });

  it("shows the gateway's message when the password throttle answers 429", async () => {
    server.use(http.post('/api/unsubscribe/validate', () => apiError('ERR_TOO_MANY_ATTEMPTS')));
    const view = await openUnsubscribe();
    await submitIdentity(view);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Demasiados intentos. Espera unos minutos e intenta de nuevo.',
    );
    expect(dataLayerEvents('desuscripción_fallida')).toEqual([
      { event: 'desuscripción_fallida', paso: 1, codigo_error: 'ERR_TOO_MANY_ATTEMPTS' },
    ]);
  });

  it('tells a member who changed their email this week from when they may leave, and stays on step one', async () => {
    const dated =
      'Cambiaste tu correo hace poco. Por seguridad, podrás darte de baja desde el 14 de diciembre de 2026 a las 10:32 (hora de Chile).';
    server.use(http.post('/api/unsubscribe/validate', () => apiError('ERR_EMAIL_CHANGED_RECENTLY', { message: dated })));
    const view = await openUnsubscribe();
    await submitIdentity(view);
    expect(await screen.findByRole('alert')).toHaveTextContent(dated);
    expect(screen.getByRole('heading', { level: 3, name: STEP_1 })).toBeInTheDocument();
    expect(dataLayerEvents('desuscripción_fallida')).toEqual([
      { event: 'desuscripción_fallida', paso: 1, codigo_error: 'ERR_EMAIL_CHANGED_RECENTLY' },
    ]);
  });

  it('keeps the password in memory only: never in storage, and out of the mutation cache once the flow closes', async () => {
    const view = await openUnsubscribe();
    await reachReasons(view);
    const stored = JSON.stringify([{ ...window.localStorage }, { ...window.sessionStorage }, document.cookie]);
    expect(stored).not.toContain(DEMO_PASSWORD);
    await view.user.click(screen.getByRole('button', { name: 'Volver' }));
    await view.user.click(await screen.findByRole('button', { name: 'Cancelar' }));
    await screen.findByRole('heading', { level: 2, name: 'Mis Datos' });
    await waitFor(() =>
      expect(JSON.stringify(view.queryClient.getMutationCache().getAll().map((m) => m.state.variables))).not.toContain(
        DEMO_PASSWORD,
      ),
    );
  });

  it("refuses an identity that is not the member's own with the gateway's message", async () => {
    server.use(http.post('/api/unsubscribe/validate', () => apiError('ERR_IDENTITY_MISMATCH')));
    const view = await openUnsubscribe();
    await submitIdentity(view, '222222222', 'bruno@example.cl');
    expect(await screen.findByRole('alert')).toHaveTextContent('Los datos ingresados no coinciden con los de tu cuenta.');
    expect(screen.getByRole('heading', { level: 3, name: STEP_1 })).toBeInTheDocument();
    expect(requests('/api/unsubscribe/validate')[0]?.body).toEqual({
      user: '22.222.222-2',
      email: 'bruno@example.cl',
      currentPassword: DEMO_PASSWORD,
    });
    expect(requests('/api/unsubscribe/validate')[0]?.headers['x-miclub-csrf']).toBe('1');
    expect(dataLayerEvents('desuscripción_fallida')).toEqual([
      { event: 'desuscripción_fallida', paso: 1, codigo_error: 'ERR_IDENTITY_MISMATCH' },
    ]);
  });

  it('shows the date when the member had already unsubscribed', async () => {
    server.use(
      http.post('/api/unsubscribe/validate', () =>
        HttpResponse.json({ alreadyUnsubscribed: true, unsubscribedAt: '2026-11-21T15:04:05Z' }),
      ),
    );
    const view = await openUnsubscribe();
    await submitIdentity(view);
    expect(await screen.findByText('Ya te diste de baja de Mi Club el 21 de noviembre de 2026.')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { level: 3, name: STEP_2 })).not.toBeInTheDocument();
    expect(dataLayerEvents('desuscripción_paso_1')).toEqual([{ event: 'desuscripción_paso_1', ya_desuscrito: true }]);
  });

  it('shows the failure text when the gateway fails, busy meanwhile', async () => {
    server.use(
      http.post('/api/unsubscribe/validate', async () => {
        await delay(150);
        return apiError('ERR_INTERNAL');
      }),
    );
    const view = await openUnsubscribe();
    await submitIdentity(view);
    expect(screen.getByRole('button', { name: 'Continuar' })).toBeDisabled();
    expect(await screen.findByRole('alert')).toHaveTextContent(UNSUBSCRIBE_FAILED);
    expect(dataLayerEvents('desuscripción_fallida')).toEqual([
      { event: 'desuscripción_fallida', paso: 1, codigo_error: 'ERR_INTERNAL' },
    ]);
  });
});

describe('step 2 of the unsubscribe', () => {
  it('lists the reasons, asks for one, and for a text when the reason needs it', async () => {
    const view = await openUnsubscribe();
    await reachReasons(view);
    expect(screen.getByRole('heading', { level: 3, name: STEP_2 })).toHaveFocus();
    expect(dataLayerEvents('desuscripción_paso_1')).toEqual([{ event: 'desuscripción_paso_1', ya_desuscrito: false }]);
    const group = screen.getByRole('group', { name: '¿Por qué quieres darte de baja?' });
    expect(within(group).getAllByRole('radio').map((radio) => radio.closest('label')?.textContent)).toEqual([
      'No uso los beneficios del club',
      'Recibo demasiados correos',
      'No estoy de acuerdo con los términos y condiciones',
      'Otro motivo',
    ]);

    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(await screen.findByText('Elige un motivo.')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    await view.user.click(screen.getByRole('radio', { name: 'Otro motivo' }));
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    const text = screen.getByLabelText('Cuéntanos el motivo');
    expect(describedText(text)).toContain('Cuéntanos el motivo.');
    expect(text).toHaveFocus();

    await view.user.click(text);
    await view.user.paste('x'.repeat(501));
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(describedText(text)).toContain('Puedes escribir hasta 500 caracteres.');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(dataLayerEvents('desuscripción_paso_2')).toEqual([]);
  });

  it('"Volver" returns to step 1 with what was typed', async () => {
    const view = await openUnsubscribe();
    await reachReasons(view);
    await view.user.click(screen.getByRole('button', { name: 'Volver' }));
    expect(await screen.findByRole('heading', { level: 3, name: STEP_1 })).toHaveFocus();
    expect(screen.getByLabelText('RUT')).toHaveValue('11.111.111-1');
    expect(screen.getByLabelText('Correo electrónico')).toHaveValue('ana@example.cl');
  });

  it('explains what happens in an accessible modal that keeps focus, and "Cancelar" closes it', async () => {
    const view = await openUnsubscribe();
    await reachReasons(view);
    await view.user.click(screen.getByRole('radio', { name: 'No uso los beneficios del club' }));
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    const dialog = await screen.findByRole('dialog', { name: CONFIRM_TITLE });
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog).toHaveTextContent('Cerraremos tu sesión');
    expect(dialog).toHaveTextContent('Eliminaremos tus datos personales');
    expect(dialog).toHaveTextContent('Tu saldo y tu historial de movimientos quedarán guardados, pero no podrás verlos ni usarlos hasta que vuelvas a registrarte.');
    expect(dataLayerEvents('desuscripción_paso_2')).toEqual([{ event: 'desuscripción_paso_2', motivo: 1 }]);

    const cancel = within(dialog).getByRole('button', { name: 'Cancelar' });
    const confirm = within(dialog).getByRole('button', { name: 'Sí, darme de baja' });
    expect(cancel).toHaveFocus();
    await view.user.tab();
    expect(confirm).toHaveFocus();
    await view.user.tab();
    expect(within(dialog).getByRole('button', { name: 'Cerrar' })).toHaveFocus();
    await view.user.tab();
    expect(cancel).toHaveFocus();
    expect(document.getElementById('root')).toHaveAttribute('inert');

    await view.user.click(cancel);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 3, name: STEP_2 })).toBeInTheDocument();
    expect(requests('/api/unsubscribe')).toHaveLength(0);
  });

  it('keeps the modal open with the failure text when the gateway fails, and the same button retries', async () => {
    server.use(http.post('/api/unsubscribe', () => apiError('ERR_UNAVAILABLE'), { once: true }));
    const view = await openUnsubscribe();
    await reachReasons(view);
    await view.user.click(screen.getByRole('radio', { name: 'Recibo demasiados correos' }));
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    const dialog = await screen.findByRole('dialog', { name: CONFIRM_TITLE });
    await view.user.click(within(dialog).getByRole('button', { name: 'Sí, darme de baja' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(UNSUBSCRIBE_FAILED);
    expect(dataLayerEvents('desuscripción_fallida')).toEqual([
      { event: 'desuscripción_fallida', paso: 2, codigo_error: 'ERR_UNAVAILABLE' },
    ]);
    await view.user.click(within(dialog).getByRole('button', { name: 'Sí, darme de baja' }));
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    expect(requests('/api/unsubscribe')).toHaveLength(2);
  });

  it('unsubscribes, resets to logged out without /api/logout, shows the date on /login, and login then refuses', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: MOCK_NOW });
    const view = await openUnsubscribe();
    await reachReasons(view);
    await view.user.click(screen.getByRole('radio', { name: 'Otro motivo' }));
    await view.user.type(screen.getByLabelText('Cuéntanos el motivo'), '  Me cambio de ciudad  ');
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    const dialog = await screen.findByRole('dialog', { name: CONFIRM_TITLE });
    await view.user.click(within(dialog).getByRole('button', { name: 'Sí, darme de baja' }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' })).toBeInTheDocument();
    expect(currentLocation()).toBe('/login');
    expect(screen.getByRole('status')).toHaveTextContent('Te diste de baja de Mi Club el 21 de noviembre de 2026.');
    expect(requests('/api/unsubscribe')[0]?.body).toEqual({
      user: '11.111.111-1',
      email: 'ana@example.cl',
      reasonId: 99,
      reasonText: 'Me cambio de ciudad',
      currentPassword: DEMO_PASSWORD,
    });
    expect(requests('/api/logout')).toHaveLength(0);
    expect(window.localStorage.length).toBe(0);
    expect(document.cookie).not.toContain('is-logged=true');
    expect(view.queryClient.getQueryData(['profile'])).toBeUndefined();
    expect(dataLayerEvents('desuscripción_confirmada')).toEqual([{ event: 'desuscripción_confirmada', motivo: 99 }]);

    server.use(
      http.post('/api/login', () =>
        apiError('ERR_MEMBER_UNSUBSCRIBED', {
          message: 'Te diste de baja de Mi Club el 21 de noviembre de 2026. Si quieres volver, puedes registrarte de nuevo.',
          action: REGISTER_ACTION,
        }),
      ),
    );
    await view.user.type(screen.getByLabelText('RUT'), '111111111');
    await view.user.type(screen.getByLabelText('Contraseña'), DEMO_PASSWORD);
    await view.user.click(screen.getByRole('button', { name: 'Ingresar' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Te diste de baja de Mi Club el 21 de noviembre de 2026. Si quieres volver, puedes registrarte de nuevo.');
    expect(within(alert).getByRole('link', { name: REGISTER_ACTION.urlName })).toHaveAttribute('href', '/registro');
  });

  it('sends the member back to step 1 with the message under the password when step 2 finds it wrong', async () => {
    server.use(http.post('/api/unsubscribe', () => apiError('ERR_WRONG_PASSWORD', { field: 'currentPassword' })));
    const view = await openUnsubscribe();
    await reachReasons(view);
    await view.user.click(screen.getByRole('radio', { name: 'No uso los beneficios del club' }));
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    const dialog = await screen.findByRole('dialog', { name: CONFIRM_TITLE });
    await view.user.click(within(dialog).getByRole('button', { name: 'Sí, darme de baja' }));
    expect(await screen.findByRole('heading', { level: 3, name: STEP_1 })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(passwordInput()).toHaveAttribute('aria-invalid', 'true');
    expect(describedText(passwordInput())).toContain('La contraseña actual no es correcta.');
    expect(dataLayerEvents('desuscripción_fallida')).toEqual([
      { event: 'desuscripción_fallida', paso: 2, codigo_error: 'ERR_WRONG_PASSWORD' },
    ]);
  });

  it('sends the member back to step 1 when the identity no longer matches at the end', async () => {
    const view = await openUnsubscribe();
    await reachReasons(view);
    server.use(http.post('/api/unsubscribe', () => apiError('ERR_IDENTITY_MISMATCH')));
    await view.user.click(screen.getByRole('radio', { name: 'No uso los beneficios del club' }));
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    const dialog = await screen.findByRole('dialog', { name: CONFIRM_TITLE });
    await view.user.click(within(dialog).getByRole('button', { name: 'Sí, darme de baja' }));
    expect(await screen.findByRole('heading', { level: 3, name: STEP_1 })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.getByRole('alert')).toHaveTextContent('Los datos ingresados no coinciden con los de tu cuenta.');
  });
});
