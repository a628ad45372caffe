import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import type { Schemas } from '@/lib/api-types';
import { apiError } from '@/testing/api-errors';
import { brunoProfile } from '@/testing/fixtures/session';
import { sentTo } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { dataLayerEvents, loginAs, renderApp } from '@/testing/test-utils';

const opened: Schemas['ClubAccount'] = {
  balance: 0,
  updatedAt: '2026-11-21T15:00:00Z',
  opened: true,
  termsVersion: '2026-11-01',
  terms_agreement: { agreement: 'accepted', event_date: '2026-11-21T15:00:00Z' },
};

/** Bruno on Mi Cuenta: the balance answers 406 until POST /api/account answers `answer`. */
function brunoWithoutAccount(answer: () => Response | Promise<Response> = () => HttpResponse.json(opened, { status: 201 })) {
  loginAs(brunoProfile);
  let hasAccount = false;
  server.use(
    http.get('/api/balance', () =>
      hasAccount ? HttpResponse.json({ balance: 0, updatedAt: opened.updatedAt }) : apiError('ERR_NO_CLUB_ACCOUNT'),
    ),
    http.post('/api/account', async () => {
      const response = await answer();
      if (response.ok) hasAccount = true;
      return response;
    }),
  );
  return renderApp('/mi-club');
}

/**
 * How long a find waits for the app (lazy routes, then the profile and balance answers): generous,
 * because a loaded machine takes seconds where an idle one takes milliseconds. No assertion is
 * about time.
 */
const WAIT = { timeout: 10_000 };

async function joinForm() {
  return screen.findByRole('form', { name: 'Únete a Mi Club' }, WAIT);
}

describe('joining from the without-account state', { timeout: 30_000 }, () => {
  it('shows the member data prefilled and read-only, the terms link and the button', async () => {
    brunoWithoutAccount();
    const form = await joinForm();
    expect(await within(form).findByLabelText('Nombre', {}, WAIT)).toHaveValue('Bruno Soto Rojas');
    expect(within(form).getByLabelText('RUT')).toHaveValue('22.222.222-2');
    expect(within(form).getByLabelText('Correo electrónico')).toHaveValue('bruno@example.cl');
    for (const field of within(form).getAllByRole('textbox')) expect(field).toHaveAttribute('readonly');
    expect(within(form).getByRole('link', { name: 'Leer términos y condiciones' })).toHaveAttribute(
      'href',
      '/terminos-y-condiciones',
    );
    expect(within(form).getByRole('button', { name: 'Unirme a Mi Club' })).toBeEnabled();
    // The dead end is gone: nothing sends a member who has a login to /registro.
    expect(screen.queryByRole('link', { name: 'Únete a Mi Club' })).not.toBeInTheDocument();
  });

  it('asks for the terms before sending anything', async () => {
    const { user } = brunoWithoutAccount();
    const form = await joinForm();
    await user.click(within(form).getByRole('button', { name: 'Unirme a Mi Club' }));
    expect(await within(form).findByRole('alert', {}, WAIT)).toHaveTextContent(
      'Debes aceptar los términos y condiciones para unirte a Mi Club.',
    );
    expect(within(form).getByRole('checkbox')).toHaveFocus();
    expect(sentTo('/api/account', 'POST')).toHaveLength(0);
    expect(dataLayerEvents('union_club_fallida')).toEqual([
      { event: 'union_club_fallida', codigo_error: 'TERMINOS_NO_ACEPTADOS' },
    ]);
  });

  it('opens the account, shows $0 in place of the form and tracks the join', async () => {
    const { user } = brunoWithoutAccount();
    const form = await joinForm();
    await user.click(within(form).getByRole('checkbox', { name: 'Acepto los términos y condiciones de Mi Club' }));
    await user.click(within(form).getByRole('button', { name: 'Unirme a Mi Club' }));

    expect(await screen.findByTestId('balance-amount', {}, WAIT)).toHaveTextContent('$0');
    expect(screen.queryByRole('form', { name: 'Únete a Mi Club' })).not.toBeInTheDocument();
    expect(screen.queryByText('Aún no tienes una cuenta Mi Club.')).not.toBeInTheDocument();
    // The button pressed is gone: focus and the screen reader go to the new balance.
    expect(screen.getByRole('status')).toHaveTextContent(
      '¡Ya eres parte de Mi Club! Desde hoy acumulas saldo en cada compra.',
    );
    await waitFor(() => expect(screen.getByRole('heading', { level: 2, name: 'Tu saldo Mi Club' })).toHaveFocus());
    const posts = sentTo('/api/account', 'POST');
    expect(posts).toHaveLength(1);
    // Only the decision: the member is the session's, never the body's.
    expect(posts[0]?.body).toEqual({ acceptTermsAndConditions: true });
    expect(dataLayerEvents('union_club_exitosa')).toEqual([{ event: 'union_club_exitosa', cuenta_nueva: true }]);
    expect(dataLayerEvents('terminos_y_condiciones_aceptado')).toEqual([
      { event: 'terminos_y_condiciones_aceptado', version: '2026-11-01' },
    ]);
  });

  it('shows the button busy while the join is on its way and sends one request however often it is clicked', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { user } = brunoWithoutAccount(async () => {
      await held;
      return HttpResponse.json(opened, { status: 201 });
    });
    const form = await joinForm();
    await user.click(within(form).getByRole('checkbox'));
    const button = within(form).getByRole('button', { name: 'Unirme a Mi Club' });
    await user.click(button);
    await waitFor(() => expect(button).toHaveAttribute('aria-busy', 'true'));
    expect(button).toBeDisabled();
    await user.click(button);
    release();
    expect(await screen.findByTestId('balance-amount', {}, WAIT)).toHaveTextContent('$0');
    expect(sentTo('/api/account', 'POST')).toHaveLength(1);
  });

  it('shows the gateway text in Spanish when the join is refused, and the form stays', async () => {
    const { user } = brunoWithoutAccount(() => apiError('ERR_MEMBER_UNSUBSCRIBED'));
    const form = await joinForm();
    await user.click(within(form).getByRole('checkbox'));
    await user.click(within(form).getByRole('button', { name: 'Unirme a Mi Club' }));
    expect(await within(form).findByRole('alert', {}, WAIT)).toHaveTextContent('Te diste de baja de Mi Club.');
    expect(screen.queryByTestId('balance-amount')).not.toBeInTheDocument();
    expect(dataLayerEvents('union_club_fallida')).toEqual([
      { event: 'union_club_fallida', codigo_error: 'ERR_MEMBER_UNSUBSCRIBED' },
    ]);
  });

  it('says it could not join when the gateway does not answer', async () => {
    const { user } = brunoWithoutAccount(async () => {
      await delay(1);
      return HttpResponse.error();
    });
    const form = await joinForm();
    await user.click(within(form).getByRole('checkbox'));
    await user.click(within(form).getByRole('button', { name: 'Unirme a Mi Club' }));
    expect(await within(form).findByRole('alert', {}, WAIT)).toHaveTextContent(
      'No pudimos crear tu cuenta Mi Club. Intenta de nuevo más tarde.',
    );
    expect(within(form).getByRole('button', { name: 'Unirme a Mi Club' })).toBeEnabled();
  });
});
