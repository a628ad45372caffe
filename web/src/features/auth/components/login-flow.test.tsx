import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError, type ApiErrorCode, messageOf, VERIFY_EMAIL_ACTION } from '@/testing/api-errors';
import { offContract } from '@/testing/contract';
import { anaLogin, DEMO_PASSWORD, diegoProfile, TYPED_OTP } from '@/testing/fixtures/session';
import { setLoggedCookie } from '@/testing/mocks/handlers';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { contextSays, currentLocation, dataLayerEvents, loginAs, renderApp } from '@/testing/test-utils';

import { LOGIN_GENERIC_ERROR } from './login-errors';

async function openLogin() {
  const view = renderApp('/login');
  await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
  return view;
}

async function submitCredentials(view: Awaited<ReturnType<typeof openLogin>>, user: string, password: string) {
  await view.user.type(screen.getByLabelText('RUT'), user);
  await view.user.type(screen.getByLabelText('Contraseña'), password);
  await view.user.click(screen.getByRole('button', { name: 'Ingresar' }));
}

async function submitCode(view: Awaited<ReturnType<typeof openLogin>>, code: string) {
  const field = await screen.findByLabelText('Código de verificación');
  await view.user.clear(field);
  await view.user.type(field, code);
  await view.user.click(screen.getByRole('button', { name: 'Validar código' }));
}

describe('the login page', () => {
  it('formats the RUT as it is typed', async () => {
    const view = await openLogin();
    const field = screen.getByLabelText('RUT');
    await view.user.type(field, '123456785');
    expect(field).toHaveValue('12.345.678-5');
  });

  it('upper-cases a K check digit as it is typed', async () => {
    const view = await openLogin();
    const field = screen.getByLabelText('RUT');
    await view.user.type(field, '10000013k');
    expect(field).toHaveValue('10.000.013-K');
  });

  it('keeps a foreign document as typed', async () => {
    const view = await openLogin();
    await view.user.click(screen.getByLabelText('No tengo RUT, ingresaré con documento extranjero'));
    const field = screen.getByLabelText('Documento extranjero');
    await view.user.type(field, 'ab123456');
    expect(field).toHaveValue('AB123456');
  });

  it('labels every field', async () => {
    await openLogin();
    for (const input of document.querySelectorAll('input')) {
      expect(input.labels?.length ?? 0).toBeGreaterThan(0);
    }
  });

  it('refuses an invalid RUT before calling the gateway and announces it', async () => {
    const view = await openLogin();
    await submitCredentials(view, '12.345.678-9', DEMO_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent('El RUT ingresado no es válido.');
    expect(sent.filter((r) => r.path === '/api/login')).toHaveLength(0);
  });

  it('sends user, password, the standalone recaptcha token and the CSRF header', async () => {
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    await screen.findByLabelText('Código de verificación');
    const request = sent.find((r) => r.path === '/api/login');
    expect(request?.body).toEqual({ user: '11.111.111-1', password: DEMO_PASSWORD });
    expect(request?.headers['recaptcha-token']).toBe('standalone');
    expect(request?.headers['x-miclub-csrf']).toBe('1');
  });

  it('logs in with the code, goes to /mi-club and pushes login_exitoso', async () => {
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    expect(await screen.findByText('a***@example.cl')).toBeInTheDocument();
    await submitCode(view, TYPED_OTP);
    expect(await screen.findByRole('heading', { name: 'Hola, Ana' })).toBeInTheDocument();
    expect(currentLocation()).toBe('/mi-club');
    expect(dataLayerEvents('login_exitoso')).toEqual([
      { event: 'login_exitoso', metodo: 'pagina', usuario_migrando: false },
    ]);
    expect(sent.find((r) => r.path === '/api/validate-otp')?.body).toEqual({ otp: TYPED_OTP });
  });

  it('never writes the token of the code answer to storage', async () => {
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    await submitCode(view, TYPED_OTP);
    await screen.findByRole('heading', { name: 'Hola, Ana' });
    const stored = [
      ...Object.keys(window.localStorage).map((key) => window.localStorage.getItem(key)),
      ...Object.keys(window.sessionStorage).map((key) => window.sessionStorage.getItem(key)),
    ].join(' ');
    expect(stored).not.toContain('header.payload.signature');
    expect(stored).not.toContain(DEMO_PASSWORD);
    expect(stored).not.toContain('token');
  });

  it('shows the server message and pushes login_fallido on a wrong password', async () => {
    server.use(http.post('/api/login', () => apiError('ERR_INVALID_CREDENTIALS')));
    const view = await openLogin();
    await submitCredentials(view, '111111111', 'incorrecta');
    expect(await screen.findByRole('alert')).toHaveTextContent('RUT o contraseña incorrectos.');
    expect(dataLayerEvents('login_fallido')).toEqual([
      { event: 'login_fallido', metodo: 'pagina', paso: 'contrasena', codigo_error: 'ERR_INVALID_CREDENTIALS' },
    ]);
  });

  it('shows the unverified-email message with its action link', async () => {
    server.use(http.post('/api/login', () => apiError('ERR_EMAIL_NOT_VERIFIED', { action: VERIFY_EMAIL_ACTION })));
    const view = await openLogin();
    await submitCredentials(view, '333333333', DEMO_PASSWORD);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(messageOf('ERR_EMAIL_NOT_VERIFIED'));
    const link = within(alert).getByRole('link', { name: VERIFY_EMAIL_ACTION.urlName });
    expect(link).toHaveAttribute('href', VERIFY_EMAIL_ACTION.url);
  });

  const serverMessages: ApiErrorCode[] = [
    'ERR_INVALID_ARGUMENT',
    'ERR_INVALID_RUT',
    'ERR_RECAPTCHA',
    'ERR_INVALID_CREDENTIALS',
    'ERR_EMAIL_NOT_VERIFIED',
    'ERR_TOO_MANY_ATTEMPTS',
    'ERR_UNAVAILABLE',
  ];
  it.each(serverMessages)('shows the gateway message for %s on the password step', async (code) => {
    server.use(http.post('/api/login', () => apiError(code)));
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(messageOf(code));
  });

  it('capitalises the first letter of the server message', async () => {
    server.use(http.post('/api/login', () => apiError('ERR_INVALID_CREDENTIALS', { message: 'rut o contraseña incorrectos.' })));
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(/^Rut o contraseña incorrectos\.$/);
  });

  it('shows the generic text when the gateway answers 500', async () => {
    server.use(http.post('/api/login', () => apiError('ERR_INTERNAL')));
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(LOGIN_GENERIC_ERROR);
    expect(LOGIN_GENERIC_ERROR).toBe('Lo sentimos! No hemos podido iniciar sesión.');
  });

  it('shows the generic text when there is no response', async () => {
    server.use(http.post('/api/login', () => HttpResponse.error()));
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(LOGIN_GENERIC_ERROR);
    expect(dataLayerEvents('login_fallido')[0]).toMatchObject({ codigo_error: 'SIN_RESPUESTA' });
  });

  it('shows the generic text when the answer is not the gateway error body', async () => {
    server.use(
      http.post('/api/login', () => offContract(new HttpResponse('Bad gateway', { status: 502 }), "a proxy's error page")),
    );
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    expect(await screen.findByRole('alert')).toHaveTextContent(LOGIN_GENERIC_ERROR);
  });

  it('shows the server message for a wrong code and pushes login_fallido for the code step', async () => {
    server.use(http.post('/api/validate-otp', () => apiError('ERR_OTP_INVALID')));
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    await submitCode(view, '000000');
    expect(await screen.findByRole('alert')).toHaveTextContent('El código ingresado no es correcto.');
    expect(dataLayerEvents('login_fallido')).toEqual([
      { event: 'login_fallido', metodo: 'pagina', paso: 'codigo', codigo_error: 'ERR_OTP_INVALID' },
    ]);
  });

  it('shows the generic text when the code step answers 500', async () => {
    server.use(http.post('/api/validate-otp', () => apiError('ERR_INTERNAL')));
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    await submitCode(view, TYPED_OTP);
    expect(await screen.findByRole('alert')).toHaveTextContent(LOGIN_GENERIC_ERROR);
  });

  it('goes back to the password step with the message when the code expired', async () => {
    server.use(http.post('/api/validate-otp', () => apiError('ERR_OTP_EXPIRED')));
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    await submitCode(view, TYPED_OTP);
    expect(await screen.findByRole('alert')).toHaveTextContent(messageOf('ERR_OTP_EXPIRED'));
    expect(screen.getByLabelText('RUT')).toHaveValue('11.111.111-1');
    expect(screen.getByLabelText('Contraseña')).toBeInTheDocument();
  });

  it('asks for all six digits before sending the code', async () => {
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    await submitCode(view, '123');
    expect(await screen.findByRole('alert')).toHaveTextContent('Ingresa los 6 dígitos del código.');
    expect(sent.filter((r) => r.path === '/api/validate-otp')).toHaveLength(0);
  });

  it('resends the code and says a new one was sent', async () => {
    server.use(
      http.post('/api/login', () =>
        HttpResponse.json({ destination: 'a***@example.cl', expiresInSeconds: 300, resendAfterSeconds: 0 }),
      ),
    );
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    await screen.findByLabelText('Código de verificación');
    await view.user.click(screen.getByRole('button', { name: 'Reenviar código' }));
    const notice = await screen.findByText('Te enviamos un nuevo código a a***@example.cl.');
    expect(notice.closest('[role="status"]')).not.toBeNull();
    expect(sent.find((r) => r.path === '/api/resend-otp')?.headers['x-miclub-csrf']).toBe('1');
  });

  it('shows the cooldown message when a resend is refused', async () => {
    server.use(
      http.post('/api/login', () =>
        HttpResponse.json({ destination: 'a***@example.cl', expiresInSeconds: 300, resendAfterSeconds: 0 }),
      ),
      http.post('/api/resend-otp', () => apiError('ERR_OTP_RESEND_COOLDOWN')),
    );
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    await screen.findByLabelText('Código de verificación');
    await view.user.click(screen.getByRole('button', { name: 'Reenviar código' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(messageOf('ERR_OTP_RESEND_COOLDOWN'));
  });

  it('disables resend while the gateway cooldown runs', async () => {
    const view = await openLogin();
    await submitCredentials(view, '111111111', DEMO_PASSWORD);
    await screen.findByLabelText('Código de verificación');
    expect(screen.getByRole('button', { name: 'Reenviar código' })).toBeDisabled();
    expect(screen.getByText(/Podrás pedir un nuevo código en \d+ segundos\./)).toBeInTheDocument();
  });

  it('welcomes a migrating member before going on', async () => {
    server.use(
      http.post('/api/validate-otp', () => {
        setLoggedCookie(true);
        return HttpResponse.json({ ...anaLogin, user: diegoProfile, has_missions: false, is_user_migrating: true });
      }),
      http.get('/api/profile', () => HttpResponse.json(diegoProfile)),
    );
    const view = await openLogin();
    await submitCredentials(view, '444444444', DEMO_PASSWORD);
    await submitCode(view, TYPED_OTP);
    expect(
      await screen.findByRole('heading', { name: '¡Te damos la bienvenida al nuevo Mi Club, Diego!' }),
    ).toBeInTheDocument();
    expect(currentLocation()).toBe('/login');
    expect(dataLayerEvents('login_exitoso')[0]).toMatchObject({ usuario_migrando: true });
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(await screen.findByRole('heading', { name: 'Hola, Diego' })).toBeInTheDocument();
  });

  it('shows a clear message instead of the form during login maintenance', async () => {
    contextSays({ isLoginMaintenance: true });
    renderApp('/login');
    expect(await screen.findByText('Inicio de sesión en mantención')).toBeInTheDocument();
    expect(screen.queryByLabelText('RUT')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Contraseña')).not.toBeInTheDocument();
  });

  it('sends a member who is already logged in to /mi-club', async () => {
    loginAs();
    renderApp('/login');
    await waitFor(() => expect(currentLocation()).toBe('/mi-club'));
  });

  it('renders without the site header and footer', async () => {
    await openLogin();
    expect(screen.queryByRole('banner')).not.toBeInTheDocument();
    expect(screen.queryByRole('contentinfo')).not.toBeInTheDocument();
    expect(screen.getByRole('main')).toBeInTheDocument();
  });
});
