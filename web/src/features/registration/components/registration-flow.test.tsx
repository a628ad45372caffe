import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';

import type { Schemas } from '@/lib/api-types';
import { apiError, FIELD_MESSAGES, RECOVER_PASSWORD_ACTION } from '@/testing/api-errors';
import { noraPersonalData, registrationAtStep2 } from '@/testing/fixtures/registration';
import { anaLogin, anaProfile } from '@/testing/fixtures/session';
import { setLoggedCookie } from '@/testing/mocks/handlers';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { contextSays, currentLocation, dataLayerEvents, renderApp } from '@/testing/test-utils';

import { IDENTITY_MESSAGES, REGISTRATION_FAILED } from '../utils/registration-rules';

import { REGISTRATION_CANCELLED, REGISTRATION_DONE_TITLE } from './registration-flow';

type View = ReturnType<typeof renderApp>;

const NORA = {
  name: 'Nora',
  lastName: 'Soto',
  motherSurname: 'Lagos',
  phoneNumber: '9 8765 4321',
  birthDate: '1990-05-01',
  gender: 'Femenino',
  email: 'nora@correo.cl',
};
const PASSWORD = 'una clave larga de registro';

const STEP_1 = 'Paso 1 de 3: tu documento';
const STEP_2 = 'Paso 2 de 3: tus datos';
const STEP_3 = 'Paso 3 de 3: tu contraseña';

function requests(path: string, method = 'POST') {
  return sent.filter((r) => r.path === path && r.method === method);
}

function describedText(element: HTMLElement): string {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

async function openRegistration() {
  const view = renderApp('/registro');
  await screen.findByRole('heading', { level: 1, name: 'Regístrate en Mi Club' });
  return view;
}

async function fillRut(view: View, rut = '123456785', serial = '100.123.456') {
  await view.user.type(screen.getByLabelText('RUT'), rut);
  await view.user.type(screen.getByLabelText('Número de documento'), serial);
}

async function submitStep1(view: View) {
  await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
}

async function fillPersonalData(view: View, data: Partial<typeof NORA> = {}) {
  const values = { ...NORA, ...data };
  await view.user.type(screen.getByLabelText('Nombre'), values.name);
  await view.user.type(screen.getByLabelText('Apellido paterno'), values.lastName);
  await view.user.type(screen.getByLabelText('Apellido materno (opcional)'), values.motherSurname);
  await view.user.type(screen.getByLabelText('Celular'), values.phoneNumber);
  fireEvent.change(screen.getByLabelText('Fecha de nacimiento'), { target: { value: values.birthDate } });
  await view.user.selectOptions(screen.getByLabelText('Género'), values.gender);
  await view.user.type(screen.getByLabelText('Correo electrónico'), values.email);
}

/** Steps 1 and 2 with Nora's data, waiting for step 3. */
async function reachStep3(view: View) {
  await fillRut(view);
  await submitStep1(view);
  await screen.findByRole('heading', { level: 2, name: STEP_2 });
  await fillPersonalData(view);
  await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
  await screen.findByRole('heading', { level: 2, name: STEP_3 });
}

/** The gateway has this browser's registration at `view.step` (a reload in the middle of the flow). */
function resumeAt(view: Partial<Schemas['RegistrationView']>) {
  server.use(http.get('/api/registration', () => HttpResponse.json({ ...registrationAtStep2, ...view })));
}

/** An ID card serial the civil registry does not recognise. */
const UNVERIFIABLE_CARD_SERIAL = '999999999';

const NORA_SAVED = {
  name: 'Nora',
  lastName: 'Soto',
  motherSurname: '',
  phoneNumber: '+56987654321',
  birthDate: '1990-05-01',
  genderId: 1,
  email: 'nora@correo.cl',
};

describe('step 1 of the registration', () => {
  it('sends the recaptcha-token header like login: the standalone token without a site key', async () => {
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    await fillRut(view);
    await submitStep1(view);
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    expect(requests('/api/registration')[0]?.headers['recaptcha-token']).toBe('standalone');
  });

  it("sends Google's token for the action 'registration' when the context gives a site key", async () => {
    contextSays({ recaptchaSiteKey: 'clave-del-sitio' });
    const execute = vi.fn((_siteKey: string, _options: { action: string }) => Promise.resolve('token-de-google'));
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    await fillRut(view);
    await submitStep1(view);
    // Google's script is added on demand; stand in for it once it is there.
    const script = await waitFor(() => {
      const found = document.head.querySelector<HTMLScriptElement>('script[src*="recaptcha/api.js"]');
      if (!found) throw new Error('no reCAPTCHA script yet');
      return found;
    });
    expect(script.src).toContain('render=clave-del-sitio');
    window.grecaptcha = { ready: (callback) => callback(), execute };
    script.dispatchEvent(new Event('load'));
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    expect(execute).toHaveBeenCalledWith('clave-del-sitio', { action: 'registration' });
    expect(requests('/api/registration')[0]?.headers['recaptcha-token']).toBe('token-de-google');
    script.remove();
    delete window.grecaptcha;
  });

  it('replaces the coming-soon placeholder and starts at step 1 when the gateway has no registration', async () => {
    await openRegistration();
    expect(await screen.findByRole('heading', { level: 2, name: STEP_1 })).toBeInTheDocument();
    expect(screen.queryByText('Próximamente')).not.toBeInTheDocument();
    const steps = screen.getByRole('list', { name: 'Pasos del registro' });
    expect(within(steps).getAllByRole('listitem')[0]).toHaveAttribute('aria-current', 'step');
    expect(screen.getByRole('radio', { name: 'RUT chileno' })).toBeChecked();
    expect(requests('/api/registration', 'GET')).toHaveLength(1);
    expect(dataLayerEvents('tipo_pagina').at(-1)).toMatchObject({ tipo_pagina: 'registro', ruta: '/registro' });
  });

  it('starts at step 1 when the flow its cookie named has expired', async () => {
    server.use(http.get('/api/registration', () => apiError('ERR_REGISTRATION_EXPIRED')));
    await openRegistration();
    expect(await screen.findByRole('heading', { level: 2, name: STEP_1 })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('checks the RUT check digit and the card serial before sending anything', async () => {
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    await fillRut(view, '123456784', '12345');
    await submitStep1(view);
    const rut = screen.getByLabelText('RUT');
    expect(rut).toHaveValue('12.345.678-4');
    expect(rut).toHaveAttribute('aria-invalid', 'true');
    expect(describedText(rut)).toContain(IDENTITY_MESSAGES.rutInvalid);
    expect(rut).toHaveFocus();
    expect(describedText(screen.getByLabelText('Número de documento'))).toContain(IDENTITY_MESSAGES.serialInvalid);
    expect(requests('/api/registration')).toHaveLength(0);
  });

  it('explains where to find the document number of the ID card', async () => {
    await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    expect(describedText(screen.getByLabelText('Número de documento'))).toMatch(/número de serie de tu cédula/);
  });

  it('sends a foreign document with its type and a country named in Spanish, Chile not among them', async () => {
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    await view.user.click(screen.getByRole('radio', { name: 'Documento extranjero' }));
    expect(screen.queryByLabelText('RUT')).not.toBeInTheDocument();
    const country = screen.getByLabelText('País emisor');
    const names = within(country)
      .getAllByRole('option')
      .map((option) => option.textContent);
    expect(names).toContain('Argentina');
    expect(names).toContain('Perú');
    expect(names).not.toContain('Chile');
    expect(within(country).queryByRole('option', { name: 'Chile' })).toBeNull();

    await submitStep1(view);
    expect(describedText(screen.getByLabelText('Tipo de documento'))).toContain(IDENTITY_MESSAGES.documentType);
    expect(describedText(country)).toContain(IDENTITY_MESSAGES.country);

    await view.user.selectOptions(screen.getByLabelText('Tipo de documento'), 'Pasaporte');
    await view.user.type(screen.getByLabelText('Número de documento'), 'p1234567');
    await view.user.selectOptions(country, 'Argentina');
    await submitStep1(view);
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    expect(requests('/api/registration')[0]?.body).toEqual({
      documentType: 'PASSPORT',
      documentNumber: 'P1234567',
      country: 'AR',
    });
    expect(requests('/api/registration')[0]?.headers['x-miclub-csrf']).toBe('1');
    expect(dataLayerEvents('registro_paso_1')).toEqual([{ event: 'registro_paso_1', tipo_documento: 'extranjero' }]);
  });

  it("shows ERR_RUT_ALREADY_REGISTERED with the gateway's message and its link to recover the password", async () => {
    server.use(http.post('/api/registration', () => apiError('ERR_RUT_ALREADY_REGISTERED', { action: RECOVER_PASSWORD_ACTION })));
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    await fillRut(view, '111111111');
    await submitStep1(view);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Este RUT ya está registrado en Mi Club. Inicia sesión o recupera tu contraseña.');
    expect(within(alert).getByRole('link', { name: 'Recuperar contraseña' })).toHaveAttribute('href', '/recuperar-contrasena');
    expect(screen.getByRole('heading', { level: 2, name: STEP_1 })).toBeInTheDocument();
    expect(dataLayerEvents('registro_fallido')).toEqual([
      { event: 'registro_fallido', paso: 1, codigo_error: 'ERR_RUT_ALREADY_REGISTERED' },
    ]);
  });

  it("shows ERR_IDENTITY_NOT_VERIFIED's message", async () => {
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    server.use(http.post('/api/registration', () => apiError('ERR_IDENTITY_NOT_VERIFIED')));
    await fillRut(view, '123456785', UNVERIFIABLE_CARD_SERIAL);
    await submitStep1(view);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'No pudimos validar tu documento. Revisa los datos e intenta de nuevo.',
    );
  });

  it('says the request failed when there is no answer, and the same button sends it again', async () => {
    server.use(http.post('/api/registration', () => HttpResponse.error(), { once: true }));
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    await fillRut(view);
    await submitStep1(view);
    expect(await screen.findByRole('alert')).toHaveTextContent(REGISTRATION_FAILED);
    expect(dataLayerEvents('registro_fallido')).toEqual([
      { event: 'registro_fallido', paso: 1, codigo_error: 'SIN_RESPUESTA' },
    ]);
    await submitStep1(view);
    expect(await screen.findByRole('heading', { level: 2, name: STEP_2 })).toBeInTheDocument();
  });

  it('disables its button and says it is busy while the gateway answers', async () => {
    server.use(
      http.post('/api/registration', async () => {
        await delay(150);
        return apiError('ERR_UNAVAILABLE');
      }),
    );
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    await fillRut(view);
    await submitStep1(view);
    const button = screen.getByRole('button', { name: 'Continuar' });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('aria-busy', 'true');
    expect(await screen.findByRole('alert')).toHaveTextContent(REGISTRATION_FAILED);
    expect(button).toBeEnabled();
  });
});

describe('the whole registration', () => {
  it('registers a Chilean member through the three steps and asks to verify the email', async () => {
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    await fillRut(view);
    await submitStep1(view);
    expect(await screen.findByRole('heading', { level: 2, name: STEP_2 })).toHaveFocus();
    expect(requests('/api/registration')[0]?.body).toEqual({
      documentType: 'RUT',
      rut: '12.345.678-5',
      documentNumber: '100.123.456',
    });

    await fillPersonalData(view);
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(await screen.findByRole('heading', { level: 2, name: STEP_3 })).toHaveFocus();
    expect(requests('/api/registration/personal-data', 'PUT')[0]?.body).toEqual({
      name: 'Nora',
      lastName: 'Soto',
      motherSurname: 'Lagos',
      phoneNumber: '+56987654321',
      birthDate: '1990-05-01',
      genderId: 1,
      email: 'nora@correo.cl',
    });

    await view.user.type(screen.getByLabelText('Contraseña'), PASSWORD);
    await view.user.click(screen.getByRole('checkbox', { name: 'Acepto los términos y condiciones de Mi Club' }));
    await view.user.click(screen.getByRole('button', { name: 'Crear mi cuenta' }));
    expect(await screen.findByRole('heading', { level: 2, name: REGISTRATION_DONE_TITLE })).toHaveFocus();
    expect(screen.getByRole('status')).toHaveTextContent(
      'Te enviamos un correo a n***@correo.cl para verificar tu dirección. Ábrelo para activar tu cuenta y luego inicia sesión.',
    );
    expect(screen.getByRole('link', { name: 'Iniciar sesión' })).toHaveAttribute('href', '/login');
    // A mail that never arrives is not a dead end: a new one is asked for on its own page.
    expect(screen.getByRole('link', { name: '¿No te llegó el correo? Pide uno nuevo' })).toHaveAttribute(
      'href',
      '/registro/verificar-correo',
    );
    expect(requests('/api/registration/complete')[0]?.body).toEqual({ password: PASSWORD, acceptTerms: true });

    expect(
      (window.dataLayer ?? []).filter((entry) => String(entry.event).startsWith('registro_')).map((entry) => entry.event),
    ).toEqual(['registro_paso_1', 'registro_paso_2', 'registro_paso_3', 'registro_exitoso']);
    expect(dataLayerEvents('registro_exitoso')).toEqual([{ event: 'registro_exitoso', tipo_documento: 'rut' }]);
  });

  it('after the verification link, the new member logs in', async () => {
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_1 });
    await reachStep3(view);
    await view.user.type(screen.getByLabelText('Contraseña'), PASSWORD);
    await view.user.click(screen.getByRole('checkbox', { name: 'Acepto los términos y condiciones de Mi Club' }));
    await view.user.click(screen.getByRole('button', { name: 'Crear mi cuenta' }));
    await screen.findByRole('heading', { level: 2, name: REGISTRATION_DONE_TITLE });
    view.unmount();

    // Verified: the gateway now lets Nora in.
    const nora = {
      ...anaProfile,
      name: noraPersonalData.name,
      last_name: noraPersonalData.lastName,
      mother_surname: '',
      phone_number: noraPersonalData.phoneNumber,
      birth_date: noraPersonalData.birthDate,
      gender_id: noraPersonalData.genderId,
      email: noraPersonalData.email,
      documentNumber: '12345678-5',
    };
    server.use(
      http.post('/api/profile/email/confirm', () => HttpResponse.json({ maskedEmail: 'n***@correo.cl', alreadyConfirmed: false })),
      http.post('/api/validate-otp', () => {
        setLoggedCookie(true);
        return HttpResponse.json({ ...anaLogin, user: nora, has_missions: false });
      }),
      http.get('/api/profile', () => HttpResponse.json(nora)),
    );
    const link = renderApp('/confirmar-correo?token=token-nora');
    await screen.findByText(/Confirmamos tu correo/);
    await link.user.click(screen.getByRole('link', { name: 'Iniciar sesión' }));
    await screen.findByRole('heading', { level: 1, name: 'Inicia sesión' });
    await link.user.type(screen.getByLabelText('RUT'), '123456785');
    await link.user.type(screen.getByLabelText('Contraseña'), PASSWORD);
    await link.user.click(screen.getByRole('button', { name: 'Ingresar' }));
    await link.user.type(await screen.findByLabelText('Código de verificación'), '123456');
    await link.user.click(screen.getByRole('button', { name: 'Validar código' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Hola, Nora' })).toBeInTheDocument();
  });
});

describe('step 2 of the registration', () => {
  it('checks every required field before sending, with the messages of Mis Datos', async () => {
    resumeAt({ step: 2 });
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(describedText(screen.getByLabelText('Nombre'))).toContain('Ingresa tu nombre.');
    expect(describedText(screen.getByLabelText('Celular'))).toContain(
      'Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.',
    );
    expect(describedText(screen.getByLabelText('Fecha de nacimiento'))).toContain(
      'Ingresa una fecha de nacimiento válida.',
    );
    expect(describedText(screen.getByLabelText('Género'))).toContain('Selecciona una opción de la lista.');
    expect(describedText(screen.getByLabelText('Correo electrónico'))).toContain('Ingresa un correo electrónico válido.');
    expect(screen.getByLabelText('Apellido materno (opcional)')).not.toHaveAttribute('aria-invalid');
    expect(screen.getByLabelText('Nombre')).toHaveFocus();
    expect(requests('/api/registration/personal-data', 'PUT')).toHaveLength(0);
  });

  it('refuses a minor with the registration\'s own message', async () => {
    resumeAt({ step: 2 });
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    const today = new Date();
    const minor = `${today.getFullYear() - 17}-01-01`;
    await fillPersonalData(view, { birthDate: minor });
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(describedText(screen.getByLabelText('Fecha de nacimiento'))).toContain(
      'Debes ser mayor de 18 años para registrarte.',
    );
  });

  it("puts the gateway's field error under its field", async () => {
    resumeAt({ step: 2 });
    server.use(
      http.put('/api/registration/personal-data', () =>
        apiError('ERR_INVALID_ARGUMENT', { field: 'phoneNumber', message: 'este celular no recibe mensajes.' }),
      ),
    );
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    await fillPersonalData(view);
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    await waitFor(() =>
      expect(describedText(screen.getByLabelText('Celular'))).toContain('Este celular no recibe mensajes.'),
    );
    expect(screen.getByLabelText('Celular')).toHaveAttribute('aria-invalid', 'true');
    expect(screen.getByLabelText('Celular')).toHaveFocus();
    expect(dataLayerEvents('registro_fallido')).toEqual([
      { event: 'registro_fallido', paso: 2, codigo_error: 'ERR_INVALID_ARGUMENT' },
    ]);
  });

  it("moves to step 3 with a member's email, as with any other (the answer never tells)", async () => {
    resumeAt({ step: 2 });
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    await fillPersonalData(view, { email: anaProfile.email });
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    expect(await screen.findByRole('heading', { level: 2, name: STEP_3 })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('uses the fixed gender list when the genders call fails', async () => {
    resumeAt({ step: 2 });
    server.use(http.get('/api/profile/genders', () => apiError('ERR_INTERNAL')));
    await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    const options = within(screen.getByLabelText('Género')).getAllByRole('option').map((option) => option.textContent);
    expect(options).toEqual([
      'Selecciona una opción',
      'Femenino',
      'Masculino',
      'Prefiero no decir',
      'No me identifico con las opciones disponibles',
      'Otros',
    ]);
  });

  it('"Volver" goes back to step 1 with the document, and a new step 1 keeps what was typed in step 2', async () => {
    resumeAt({ step: 2 });
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    await view.user.type(screen.getByLabelText('Nombre'), 'Nora');
    await view.user.click(screen.getByRole('button', { name: 'Volver' }));
    expect(await screen.findByRole('heading', { level: 2, name: STEP_1 })).toHaveFocus();
    expect(screen.getByLabelText('RUT')).toHaveValue('12.345.678-5');
    expect(screen.getByLabelText('Número de documento')).toHaveValue('100123456');
    expect(requests('/api/registration')).toHaveLength(0);

    await submitStep1(view);
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    expect(requests('/api/registration')).toHaveLength(1);
    expect(screen.getByLabelText('Nombre')).toHaveValue('Nora');
  });
});

describe('step 3 of the registration', () => {
  it('resumes at step 3 after a reload, and "Volver" shows step 2 with what was entered', async () => {
    resumeAt({ step: 3, personalData: NORA_SAVED });
    const view = await openRegistration();
    expect(await screen.findByRole('heading', { level: 2, name: STEP_3 })).toBeInTheDocument();
    const steps = screen.getByRole('list', { name: 'Pasos del registro' });
    expect(within(steps).getAllByRole('listitem')[2]).toHaveAttribute('aria-current', 'step');

    await view.user.click(screen.getByRole('button', { name: 'Volver' }));
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    expect(screen.getByLabelText('Nombre')).toHaveValue('Nora');
    expect(screen.getByLabelText('Celular')).toHaveValue('+56987654321');
    expect(screen.getByLabelText('Fecha de nacimiento')).toHaveValue('1990-05-01');
    expect(screen.getByLabelText('Género')).toHaveValue('1');
    expect(screen.getByLabelText('Correo electrónico')).toHaveValue('nora@correo.cl');

    await view.user.clear(screen.getByLabelText('Nombre'));
    await view.user.type(screen.getByLabelText('Nombre'), 'Norma');
    await view.user.click(screen.getByRole('button', { name: 'Continuar' }));
    await screen.findByRole('heading', { level: 2, name: STEP_3 });
    expect(requests('/api/registration/personal-data', 'PUT')[0]?.body).toMatchObject({ name: 'Norma' });
  });

  it('asks for the terms, links them in a new tab, and puts a common password under its field', async () => {
    resumeAt({ step: 3, personalData: NORA_SAVED });
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_3 });
    const terms = screen.getByRole('link', { name: /Leer los términos y condiciones/ });
    expect(terms).toHaveAttribute('href', '/terminos-y-condiciones');
    expect(terms).toHaveAttribute('target', '_blank');
    expect(terms).toHaveAttribute('rel', 'noopener noreferrer');
    expect(describedText(screen.getByLabelText('Contraseña'))).toContain('Usa entre 8 y 64 caracteres.');

    await view.user.type(screen.getByLabelText('Contraseña'), '12345678');
    await view.user.click(screen.getByRole('button', { name: 'Crear mi cuenta' }));
    const checkbox = screen.getByRole('checkbox', { name: 'Acepto los términos y condiciones de Mi Club' });
    expect(checkbox).toHaveAttribute('aria-invalid', 'true');
    expect(describedText(checkbox)).toContain('Debes aceptar los términos y condiciones para registrarte.');
    expect(checkbox).toHaveFocus();
    expect(requests('/api/registration/complete')).toHaveLength(0);

    server.use(
      http.post('/api/registration/complete', () =>
        apiError('ERR_WEAK_PASSWORD', { field: 'password', message: FIELD_MESSAGES.passwordCommon }),
      ),
    );
    await view.user.click(checkbox);
    await view.user.click(screen.getByRole('button', { name: 'Crear mi cuenta' }));
    await waitFor(() => expect(describedText(screen.getByLabelText('Contraseña'))).toContain(FIELD_MESSAGES.passwordCommon));
    expect(screen.getByLabelText('Contraseña')).toHaveFocus();
  });

  it('goes back to step 1 with the message when the registration expired', async () => {
    resumeAt({ step: 3, personalData: NORA_SAVED });
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_3 });
    server.use(http.post('/api/registration/complete', () => apiError('ERR_REGISTRATION_EXPIRED')));
    await view.user.type(screen.getByLabelText('Contraseña'), PASSWORD);
    await view.user.click(screen.getByRole('checkbox', { name: 'Acepto los términos y condiciones de Mi Club' }));
    await view.user.click(screen.getByRole('button', { name: 'Crear mi cuenta' }));
    expect(await screen.findByRole('heading', { level: 2, name: STEP_1 })).toHaveFocus();
    expect(screen.getByRole('alert')).toHaveTextContent('Tu registro expiró por inactividad. Comienza de nuevo.');
    expect(screen.getByLabelText('RUT')).toHaveValue('12.345.678-5');
    expect(dataLayerEvents('registro_fallido')).toEqual([
      { event: 'registro_fallido', paso: 3, codigo_error: 'ERR_REGISTRATION_EXPIRED' },
    ]);
  });

  it('tells a returning member to use the address they left with, and lets them go back to change it', async () => {
    resumeAt({ step: 3, personalData: NORA_SAVED });
    server.use(http.post('/api/registration/complete', () => apiError('ERR_PREVIOUS_EMAIL_REQUIRED')));
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_3 });
    await view.user.type(screen.getByLabelText('Contraseña'), PASSWORD);
    await view.user.click(screen.getByRole('checkbox', { name: 'Acepto los términos y condiciones de Mi Club' }));
    await view.user.click(screen.getByRole('button', { name: 'Crear mi cuenta' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Este documento estuvo inscrito en Mi Club. Para volver, usa el correo que tenías registrado o escríbenos a través de la sección de ayuda.',
    );
    expect(screen.getByRole('heading', { level: 2, name: STEP_3 })).toBeInTheDocument();
    expect(dataLayerEvents('registro_fallido')).toEqual([
      { event: 'registro_fallido', paso: 3, codigo_error: 'ERR_PREVIOUS_EMAIL_REQUIRED' },
    ]);
    await view.user.click(screen.getByRole('button', { name: 'Volver' }));
    await screen.findByRole('heading', { level: 2, name: STEP_2 });
    expect(screen.getByLabelText('Correo electrónico')).toHaveValue('nora@correo.cl');
  });

  it('keeps everything on a 503 and the same button finishes the registration', async () => {
    resumeAt({ step: 3, personalData: NORA_SAVED });
    let failedOnce = 0;
    server.use(
      http.post(
        '/api/registration/complete',
        () => {
          failedOnce += 1;
          return apiError('ERR_UNAVAILABLE');
        },
        { once: true },
      ),
    );
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_3 });
    await view.user.type(screen.getByLabelText('Contraseña'), PASSWORD);
    await view.user.click(screen.getByRole('checkbox', { name: 'Acepto los términos y condiciones de Mi Club' }));
    await view.user.click(screen.getByRole('button', { name: 'Crear mi cuenta' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(REGISTRATION_FAILED);
    expect(screen.getByLabelText('Contraseña')).toHaveValue(PASSWORD);
    await view.user.click(screen.getByRole('button', { name: 'Crear mi cuenta' }));
    expect(await screen.findByRole('heading', { level: 2, name: REGISTRATION_DONE_TITLE })).toBeInTheDocument();
    expect(failedOnce).toBe(1);
    // Every request is recorded now, the refused one too: sent once, then once more by the same button.
    expect(requests('/api/registration/complete')).toHaveLength(2);
  });

  it('cancels the registration with DELETE and starts over at step 1', async () => {
    resumeAt({ step: 3, personalData: NORA_SAVED });
    const view = await openRegistration();
    await screen.findByRole('heading', { level: 2, name: STEP_3 });
    await view.user.click(screen.getByRole('button', { name: 'Cancelar registro' }));
    expect(await screen.findByRole('heading', { level: 2, name: STEP_1 })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent(REGISTRATION_CANCELLED);
    expect(screen.getByLabelText('RUT')).toHaveValue('');
    expect(requests('/api/registration', 'DELETE')).toHaveLength(1);
    expect(requests('/api/registration', 'DELETE')[0]?.headers['x-miclub-csrf']).toBe('1');
    expect(currentLocation()).toBe('/registro');
  });
});
