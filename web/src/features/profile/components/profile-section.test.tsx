import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { FALLBACK_GENDERS } from '@/lib/genders';
import { apiError } from '@/testing/api-errors';
import { offContract } from '@/testing/contract';
import { MOCK_NOW } from '@/testing/fixtures/account';
import { anaProfile, carlaProfile } from '@/testing/fixtures/session';
import { DEMO_PASSWORD } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { renderAccountSection } from '@/testing/test-utils';


const LABELS = {
  email: 'Correo electrónico',
  name: 'Nombre',
  lastName: 'Apellido paterno',
  motherSurname: 'Apellido materno (opcional)',
  phone: 'Celular (opcional)',
  birthDate: 'Fecha de nacimiento (opcional)',
  gender: 'Género (opcional)',
};

function input(label: string): HTMLInputElement {
  return screen.getByLabelText(label, { selector: 'input, select' });
}

const CURRENT_PASSWORD = 'Contraseña actual';

/** The error is shown, announced, and tied to its field. */
function expectFieldError(label: string, message: string) {
  const field = input(label);
  expect(field).toHaveAttribute('aria-invalid', 'true');
  expect(field).toHaveAccessibleDescription(expect.stringContaining(message));
}

function putRequests() {
  return sent.filter((r) => r.method === 'PUT' && r.path === '/api/profile');
}

async function openMisDatos(profile = anaProfile) {
  const view = await renderAccountSection('Mis Datos', { profile });
  await screen.findByLabelText(LABELS.email);
  return view;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Mis Datos', () => {
  it('shows a loading state while the profile is on its way', async () => {
    server.use(
      http.get('/api/profile', async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    await renderAccountSection('Mis Datos');
    expect(await screen.findByText('Cargando tus datos…')).toBeInTheDocument();
    expect(screen.queryByLabelText(LABELS.email)).not.toBeInTheDocument();
  });

  it('shows a failure with a retry when the profile cannot be read', async () => {
    server.use(http.get('/api/profile', () => apiError('ERR_UNAVAILABLE')));
    const { user } = await renderAccountSection('Mis Datos');
    expect(await screen.findByText('No pudimos cargar tus datos. Intenta de nuevo más tarde.')).toBeInTheDocument();
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByLabelText(LABELS.email)).toHaveValue('ana@example.cl');
  });

  it("fills the form with the member's data and shows the RUT read-only", async () => {
    await openMisDatos();
    expect(input(LABELS.email)).toHaveValue('ana@example.cl');
    expect(input(LABELS.name)).toHaveValue('Ana');
    expect(input(LABELS.lastName)).toHaveValue('González');
    expect(input(LABELS.motherSurname)).toHaveValue('Pérez');
    expect(input(LABELS.phone)).toHaveValue('+56912345678');
    expect(input(LABELS.birthDate)).toHaveValue('1990-05-17');
    expect(input(LABELS.gender)).toHaveDisplayValue('Femenino');
    expect(screen.getByTestId('profile-document')).toHaveTextContent('11.111.111-1');
    expect(screen.queryByRole('textbox', { name: 'RUT' })).not.toBeInTheDocument();
  });

  it('says that a confirmed email is confirmed, without a resend action', async () => {
    await openMisDatos();
    expect(screen.getByTestId('email-status')).toHaveTextContent('Confirmado');
    expect(screen.queryByRole('button', { name: 'Reenviar correo de confirmación' })).not.toBeInTheDocument();
  });

  it('offers to resend the link of an unconfirmed email', async () => {
    const { user } = await openMisDatos(carlaProfile);
    expect(screen.getByTestId('email-status')).toHaveTextContent('Sin confirmar');
    await user.click(screen.getByRole('button', { name: 'Reenviar correo de confirmación' }));
    expect(await screen.findByText('Te enviamos un nuevo enlace de confirmación a carla@example.cl.')).toBeInTheDocument();
    expect(sent.find((r) => r.path === '/api/profile/email/resend')?.headers['x-miclub-csrf']).toBe('1');
  });

  it('shows the email as confirmed when a resend finds it confirmed meanwhile (409)', async () => {
    const { user } = await openMisDatos(carlaProfile);
    // Confirmed meanwhile: the gateway refuses the resend and the profile now says so.
    server.use(
      http.post('/api/profile/email/resend', () => apiError('ERR_EMAIL_ALREADY_CONFIRMED')),
      http.get('/api/profile', () => HttpResponse.json({ ...carlaProfile, email_confirmed: true })),
    );
    await user.click(screen.getByRole('button', { name: 'Reenviar correo de confirmación' }));
    await waitFor(() => expect(screen.getByTestId('email-status')).toHaveTextContent('Confirmado'));
    expect(screen.queryByRole('button', { name: 'Reenviar correo de confirmación' })).not.toBeInTheDocument();
    expect(sent.filter((r) => r.path === '/api/profile/email/resend')).toHaveLength(1);
  });

  it('checks the fields as the gateway does and shows each message under its field', async () => {
    const { user } = await openMisDatos();
    await user.clear(input(LABELS.email));
    await user.type(input(LABELS.email), 'ana@example');
    await user.clear(input(LABELS.name));
    await user.clear(input(LABELS.lastName));
    await user.type(input(LABELS.lastName), 'González2');
    await user.clear(input(LABELS.motherSurname));
    await user.type(input(LABELS.motherSurname), 'Pérez!');
    await user.clear(input(LABELS.phone));
    await user.type(input(LABELS.phone), '2 2345 6789');
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));

    expectFieldError(LABELS.email, 'Ingresa un correo electrónico válido.');
    expectFieldError(LABELS.name, 'Ingresa tu nombre.');
    expectFieldError(LABELS.lastName, 'Usa solo letras, espacios, apóstrofes o guiones.');
    expectFieldError(LABELS.motherSurname, 'Usa solo letras, espacios, apóstrofes o guiones.');
    expectFieldError(LABELS.phone, 'Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.');
    expect(input(LABELS.birthDate)).not.toHaveAttribute('aria-invalid');
    expect(input(LABELS.email)).toHaveFocus();
    expect(putRequests()).toHaveLength(0);

    // Correcting a field clears its message.
    await user.type(input(LABELS.name), 'Ana');
    expect(input(LABELS.name)).not.toHaveAttribute('aria-invalid');
  });

  it('refuses a birth date under 18 years and one over 120', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: MOCK_NOW });
    const { user } = await openMisDatos();
    fireEvent.change(input(LABELS.birthDate), { target: { value: '2008-11-22' } });
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    expectFieldError(LABELS.birthDate, 'Debes ser mayor de 18 años.');
    fireEvent.change(input(LABELS.birthDate), { target: { value: '1899-12-31' } });
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    expectFieldError(LABELS.birthDate, 'Ingresa una fecha de nacimiento válida.');
    expect(putRequests()).toHaveLength(0);
  });

  it("puts the gateway's field error under the field it names", async () => {
    server.use(
      http.put('/api/profile', () =>
        apiError('ERR_INVALID_ARGUMENT', {
          field: 'phone_number',
          message: 'ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.',
        }),
      ),
    );
    const { user } = await openMisDatos();
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    await waitFor(() =>
      expectFieldError(LABELS.phone, 'Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.'),
    );
    expect(input(LABELS.phone)).toHaveFocus();
    expect(screen.queryByText('Tus datos fueron actualizados.')).not.toBeInTheDocument();
  });

  it('saves the changes, says so, and shows the name the gateway stored', async () => {
    const stored = { ...anaProfile, name: 'Ana María', phone_number: '+56987654321', gender_id: 3 };
    server.use(
      http.put('/api/profile', () => HttpResponse.json({ user: stored, emailConfirmationSent: false })),
      http.get('/api/profile', () => HttpResponse.json(stored)),
    );
    const { user } = await openMisDatos();
    await user.clear(input(LABELS.name));
    await user.type(input(LABELS.name), ' Ana María ');
    await user.clear(input(LABELS.phone));
    await user.type(input(LABELS.phone), '9 8765 4321');
    await user.selectOptions(input(LABELS.gender), 'Prefiero no decir');
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));

    expect(await screen.findByRole('status')).toHaveTextContent(/^Tus datos fueron actualizados\.$/);
    const [request] = putRequests();
    expect(request?.headers['x-miclub-csrf']).toBe('1');
    expect(request?.body).toEqual({
      email: 'ana@example.cl',
      name: 'Ana María',
      last_name: 'González',
      mother_surname: 'Pérez',
      phone_number: '9 8765 4321',
      birth_date: '1990-05-17',
      gender_id: 3,
    });
    // The stored (normalised) values replace what was typed; the greeting follows the new name.
    expect(input(LABELS.phone)).toHaveValue('+56987654321');
    expect(await screen.findByRole('heading', { level: 1, name: 'Hola, Ana María' })).toBeInTheDocument();
  });

  it('clears an optional field with an empty value and gender 0', async () => {
    const cleared = { ...anaProfile, mother_surname: '', phone_number: '', birth_date: null, gender_id: null };
    server.use(http.put('/api/profile', () => HttpResponse.json({ user: cleared, emailConfirmationSent: false })));
    const { user } = await openMisDatos();
    await user.clear(input(LABELS.motherSurname));
    await user.clear(input(LABELS.phone));
    fireEvent.change(input(LABELS.birthDate), { target: { value: '' } });
    await user.selectOptions(input(LABELS.gender), 'Sin especificar');
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    await screen.findByText('Tus datos fueron actualizados.');
    expect(putRequests()[0]?.body).toMatchObject({ mother_surname: '', phone_number: '', birth_date: '', gender_id: 0 });
  });

  it('tells the member that a confirmation link went to a new email', async () => {
    const changed = { ...anaProfile, email: 'ana.nueva@example.cl', email_confirmed: false };
    server.use(http.put('/api/profile', () => HttpResponse.json({ user: changed, emailConfirmationSent: true })));
    const { user } = await openMisDatos();
    await user.clear(input(LABELS.email));
    await user.type(input(LABELS.email), 'ana.nueva@example.cl');
    await user.type(input(CURRENT_PASSWORD), DEMO_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Tus datos fueron actualizados. Te enviamos un enlace de confirmación a ana.nueva@example.cl',
    );
    expect(screen.getByTestId('email-status')).toHaveTextContent('Sin confirmar');
    expect(putRequests()[0]?.body).toMatchObject({ email: 'ana.nueva@example.cl', currentPassword: DEMO_PASSWORD });
    // Saved: the password leaves the form (and the field, the email being current again).
    expect(screen.queryByLabelText(CURRENT_PASSWORD, { selector: 'input' })).not.toBeInTheDocument();
  });

  it('shows that it is saving while the update is on its way', async () => {
    server.use(
      http.put('/api/profile', async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const { user } = await openMisDatos();
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    expect(screen.getByRole('button', { name: 'Guardar cambios' })).toHaveAttribute('aria-busy', 'true');
    expect(screen.getByRole('button', { name: 'Guardar cambios' })).toBeDisabled();
  });

  it("shows the gateway's message, or a generic one, when the update fails without a field", async () => {
    server.use(http.put('/api/profile', () => apiError('ERR_TOO_MANY_ATTEMPTS')));
    const { user } = await openMisDatos();
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Demasiados intentos. Espera unos minutos e intenta de nuevo.');
    server.use(http.put('/api/profile', () => HttpResponse.error()));
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    await waitFor(() =>
      expect(screen.getByRole('alert')).toHaveTextContent('No pudimos actualizar tus datos. Intenta de nuevo más tarde.'),
    );
  });

  it('offers the genders the gateway lists', async () => {
    server.use(
      http.get('/api/profile/genders', () =>
        HttpResponse.json([
          { id: 1, label: 'Femenino' },
          { id: 9, label: 'Otra identidad' },
        ]),
      ),
    );
    await openMisDatos();
    const select = input(LABELS.gender);
    await waitFor(() =>
      expect(within(select).getAllByRole('option').map((option) => option.textContent)).toEqual([
        'Sin especificar',
        'Femenino',
        'Otra identidad',
      ]),
    );
  });

  it.each([
    ['a 503', () => apiError('ERR_UNAVAILABLE')],
    ['no answer', () => HttpResponse.error()],
    ['an unusable answer', () => offContract(HttpResponse.json({ genders: 'none' }), 'a corrupted body')],
  ])('falls back to the fixed genders list on %s', async (_, answer) => {
    let asked = false;
    server.use(
      http.get('/api/profile/genders', () => {
        asked = true;
        return answer();
      }),
    );
    await openMisDatos();
    await waitFor(() => expect(asked).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    const options = within(input(LABELS.gender)).getAllByRole('option');
    expect(options.map((option) => [option.getAttribute('value'), option.textContent])).toEqual([
      ['0', 'Sin especificar'],
      ...FALLBACK_GENDERS.map((gender) => [String(gender.id), gender.label]),
    ]);
    expect(FALLBACK_GENDERS.map((gender) => `${gender.id} ${gender.label}`)).toEqual([
      '1 Femenino',
      '2 Masculino',
      '3 Prefiero no decir',
      '6 No me identifico con las opciones disponibles',
      '7 Otros',
    ]);
  });
});

describe('the step-up of an email change in Mis Datos', () => {
  it('asks for the current password in place as soon as the email differs, and not otherwise', async () => {
    const { user } = await openMisDatos();
    expect(screen.queryByLabelText(CURRENT_PASSWORD, { selector: 'input' })).not.toBeInTheDocument();
    await user.type(input(LABELS.email), 'x');
    const password = input(CURRENT_PASSWORD);
    expect(password).toHaveAttribute('type', 'password');
    expect(password).toHaveAttribute('autocomplete', 'current-password');
    expect(password).toBeRequired();
    await user.type(password, 'algo');

    // Back to the current email: no password asked for, none kept.
    await user.type(input(LABELS.email), '{Backspace}');
    expect(input(LABELS.email)).toHaveValue('ana@example.cl');
    expect(screen.queryByLabelText(CURRENT_PASSWORD, { selector: 'input' })).not.toBeInTheDocument();
    await user.type(input(LABELS.email), 'x');
    expect(input(CURRENT_PASSWORD)).toHaveValue('');
  });

  it('refuses to send a new email without the password, with the message under its field', async () => {
    const { user } = await openMisDatos();
    await user.clear(input(LABELS.email));
    await user.type(input(LABELS.email), 'ana.nueva@example.cl');
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    expectFieldError(CURRENT_PASSWORD, 'Ingresa tu contraseña actual para cambiar tu correo.');
    expect(input(CURRENT_PASSWORD)).toHaveFocus();
    expect(putRequests()).toHaveLength(0);
  });

  it('shows a wrong password (422 ERR_WRONG_PASSWORD) under its field, changes nothing and does not log out', async () => {
    server.use(http.put('/api/profile', () => apiError('ERR_WRONG_PASSWORD', { field: 'currentPassword' })));
    const { user } = await openMisDatos();
    await user.clear(input(LABELS.email));
    await user.type(input(LABELS.email), 'ana.nueva@example.cl');
    await user.type(input(CURRENT_PASSWORD), 'NoEsMiClave1');
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    await waitFor(() => expectFieldError(CURRENT_PASSWORD, 'La contraseña actual no es correcta.'));
    expect(input(CURRENT_PASSWORD)).toHaveFocus();
    expect(screen.queryByText(/Tus datos fueron actualizados/)).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { level: 2, name: 'Mis Datos' })).toBeInTheDocument();
    // Typing again clears the message.
    await user.type(input(CURRENT_PASSWORD), 'x');
    expect(input(CURRENT_PASSWORD)).not.toHaveAttribute('aria-invalid');
  });

  it("shows the field with the gateway's message when the gateway asks for a password the form did not", async () => {
    server.use(
      http.put('/api/profile', () =>
        apiError('ERR_INVALID_ARGUMENT', {
          field: 'currentPassword',
          message: 'Ingresa tu contraseña actual para cambiar tu correo.',
        }),
      ),
    );
    const { user } = await openMisDatos();
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    await waitFor(() => expectFieldError(CURRENT_PASSWORD, 'Ingresa tu contraseña actual para cambiar tu correo.'));
    await waitFor(() => expect(input(CURRENT_PASSWORD)).toHaveFocus());
  });

  it("shows the throttle's message (429 ERR_TOO_MANY_ATTEMPTS) above the form", async () => {
    server.use(
      http.put('/api/profile', () =>
        HttpResponse.json(
          { code: 'ERR_TOO_MANY_ATTEMPTS', message: 'Demasiados intentos. Espera unos minutos e intenta de nuevo.' },
          { status: 429, headers: { 'Retry-After': '4' } },
        ),
      ),
    );
    const { user } = await openMisDatos();
    await user.clear(input(LABELS.email));
    await user.type(input(LABELS.email), 'ana.nueva@example.cl');
    await user.type(input(CURRENT_PASSWORD), DEMO_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Demasiados intentos. Espera unos minutos e intenta de nuevo.');
    expect(input(CURRENT_PASSWORD)).not.toHaveAttribute('aria-invalid');
  });

  it('never writes the password to browser storage', async () => {
    const changed = { ...anaProfile, email: 'ana.nueva@example.cl', email_confirmed: false };
    server.use(http.put('/api/profile', () => HttpResponse.json({ user: changed, emailConfirmationSent: true })));
    const { user } = await openMisDatos();
    await user.clear(input(LABELS.email));
    await user.type(input(LABELS.email), 'ana.nueva@example.cl');
    await user.type(input(CURRENT_PASSWORD), DEMO_PASSWORD);
    await user.click(screen.getByRole('button', { name: 'Guardar cambios' }));
    await screen.findByText(/Te enviamos un enlace de confirmación/);
    const stored = JSON.stringify([{ ...window.localStorage }, { ...window.sessionStorage }, document.cookie]);
    expect(stored).not.toContain(DEMO_PASSWORD);
  });
});
