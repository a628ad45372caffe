import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { anaProfile, carlaProfile } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { accountMenuLink, currentLocation, dataLayerEvents, renderAccountSection } from '@/testing/test-utils';

import { termsState } from '../utils/terms-state';

const FAILED = 'No pudimos actualizar tus términos y condiciones, intenta de nuevo más tarde.';

function decisions() {
  return sent.filter((r) => r.method === 'POST' && r.path === '/api/terms-and-conditions');
}

const menuButton = accountMenuLink;

async function openTerms(profile = anaProfile) {
  const view = await renderAccountSection('Términos y Condiciones', { profile });
  await screen.findByRole('heading', { level: 3, name: 'Términos y condiciones del programa Mi Club' });
  return view;
}

describe('the terms state', () => {
  it('has rejected as the opposite of accepted once decided, and neither before', () => {
    expect(termsState({ agreement: 'accepted', event_date: '2026-01-10T12:00:00Z' })).toEqual({
      terms_and_conditions_accepted: true,
      terms_and_conditions_rejected: false,
      terms_and_conditions_last_update: '2026-01-10T12:00:00Z',
    });
    expect(termsState({ agreement: 'rejected', event_date: '2026-02-01T00:00:00Z' })).toMatchObject({
      terms_and_conditions_accepted: false,
      terms_and_conditions_rejected: true,
    });
    expect(termsState({ agreement: null, event_date: null })).toEqual({
      terms_and_conditions_accepted: false,
      terms_and_conditions_rejected: false,
      terms_and_conditions_last_update: null,
    });
  });
});

describe('Términos y Condiciones in the account menu', () => {
  it('shows the text in force with its version and the decision of the member with its date', async () => {
    await openTerms();
    expect(screen.getByTestId('terms-version')).toHaveTextContent('Versión 2026-02, vigente desde el 1 de febrero de 2026');
    expect(screen.getByText('Cada compra acumula saldo en pesos según las reglas vigentes.')).toBeInTheDocument();
    expect(screen.getByTestId('terms-decision')).toHaveTextContent(
      'Aceptaste los términos y condiciones el 10 de enero de 2026.',
    );
    expect(screen.getByRole('region', { name: 'Texto de los términos y condiciones' })).toHaveAttribute('tabindex', '0');
  });

  it('says so when the member never decided', async () => {
    await openTerms(carlaProfile);
    expect(screen.getByTestId('terms-decision')).toHaveTextContent(
      'Aún no has aceptado ni rechazado los términos y condiciones.',
    );
  });

  it('accepts, records it, goes back to Mi Cuenta and pushes the analytics event', async () => {
    const { user } = await openTerms(carlaProfile);
    await user.click(screen.getByRole('button', { name: 'Aceptar' }));

    expect(await screen.findByText('Aceptaste los términos y condiciones.')).toBeInTheDocument();
    expect(menuButton('Mi Cuenta')).toHaveAttribute('aria-current', 'page');
    expect(currentLocation()).toBe('/mi-club');
    expect(await screen.findByTestId('balance-amount')).toBeInTheDocument();
    expect(decisions()).toHaveLength(1);
    expect(decisions()[0]?.body).toEqual({ acceptTermsAndConditions: true, version: '2026-02' });
    expect(decisions()[0]?.headers['x-miclub-csrf']).toBe('1');
    expect(dataLayerEvents('terminos_y_condiciones_aceptado')).toEqual([
      { event: 'terminos_y_condiciones_aceptado', version: '2026-02' },
    ]);

    // The profile holds the new decision: back in the section it reads accepted, today; the notice
    // belonged to the visit to Mi Cuenta and stays behind.
    await user.click(menuButton('Términos y Condiciones'));
    expect(await screen.findByTestId('terms-decision')).toHaveTextContent(/^Aceptaste los términos y condiciones el /);
    expect(screen.queryByText('Aceptaste los términos y condiciones.')).not.toBeInTheDocument();
    await user.click(menuButton('Mi Cuenta'));
    await screen.findByTestId('balance-amount');
    expect(screen.queryByText('Aceptaste los términos y condiciones.')).not.toBeInTheDocument();
  });

  it('asks in a modal before rejecting, and Volver leaves everything as it was', async () => {
    const { user } = await openTerms();
    await user.click(screen.getByRole('button', { name: 'Rechazar' }));
    const dialog = await screen.findByRole('dialog', { name: '¿Quieres rechazar los términos y condiciones?' });
    expect(dialog).toHaveTextContent('Puedes volver a aceptarlos cuando quieras');
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Volver' })).toHaveFocus());
    await user.click(within(dialog).getByRole('button', { name: 'Volver' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(decisions()).toHaveLength(0);
    expect(menuButton('Términos y Condiciones')).toHaveAttribute('aria-current', 'page');
  });

  it('rejects from the modal, closes it, goes back to Mi Cuenta and pushes the analytics event', async () => {
    const { user } = await openTerms();
    await user.click(screen.getByRole('button', { name: 'Rechazar' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Sí, rechazar' }));

    expect(await screen.findByText(/^Rechazaste los términos y condiciones\. Puedes aceptarlos cuando quieras/)).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(menuButton('Mi Cuenta')).toHaveAttribute('aria-current', 'page');
    expect(decisions()[0]?.body).toEqual({ acceptTermsAndConditions: false, version: '2026-02' });
    expect(dataLayerEvents('terminos_y_condiciones_rechazado')).toEqual([
      { event: 'terminos_y_condiciones_rechazado', version: '2026-02' },
    ]);
    expect(dataLayerEvents('terminos_y_condiciones_aceptado')).toEqual([]);

    await user.click(menuButton('Términos y Condiciones'));
    expect(await screen.findByTestId('terms-decision')).toHaveTextContent(/^Rechazaste los términos y condiciones el /);
  });

  it('shows the spec text when accepting fails, and stays in the section', async () => {
    server.use(http.post('/api/terms-and-conditions', () => apiError('ERR_UNAVAILABLE')));
    const { user } = await openTerms();
    await user.click(screen.getByRole('button', { name: 'Aceptar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(FAILED);
    expect(menuButton('Términos y Condiciones')).toHaveAttribute('aria-current', 'page');
    expect(dataLayerEvents('terminos_y_condiciones_aceptado')).toEqual([]);
  });

  it('shows the spec text inside the modal when rejecting fails, whatever the gateway said', async () => {
    server.use(http.post('/api/terms-and-conditions', () => HttpResponse.error()));
    const { user } = await openTerms();
    await user.click(screen.getByRole('button', { name: 'Rechazar' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByRole('button', { name: 'Sí, rechazar' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(FAILED);
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('shows a failure with a retry when the text cannot be read, and no decision buttons', async () => {
    server.use(http.get('/api/terms-and-conditions', () => apiError('ERR_UNAVAILABLE')));
    const { user } = await renderAccountSection('Términos y Condiciones');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'No pudimos cargar los términos y condiciones. Intenta de nuevo más tarde.',
    );
    expect(screen.queryByRole('button', { name: 'Aceptar' })).not.toBeInTheDocument();
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByRole('button', { name: 'Aceptar' })).toBeInTheDocument();
  });
});
