import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { terms } from '@/testing/fixtures/profile';
import { anaProfile } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { dataLayerEvents, loginAs, renderApp } from '@/testing/test-utils';

import { needsNewTermsDecision } from './new-terms-prompt';

const NEW_VERSION = { ...terms, version: '2026-12-01', title: 'Términos y condiciones, versión de diciembre' };

function decisions() {
  return sent.filter((r) => r.method === 'POST' && r.path === '/api/terms-and-conditions');
}

function publishNewVersion() {
  server.use(http.get('/api/terms-and-conditions', () => HttpResponse.json(NEW_VERSION)));
}

async function openMiClub() {
  loginAs(anaProfile);
  const view = renderApp('/mi-club');
  await screen.findByRole('heading', { level: 1, name: /^Hola/ });
  return view;
}

describe('a new version of the terms', () => {
  it('is asked about only when the version decided on is not the one in force', () => {
    const decided = { agreement: 'accepted', event_date: '2026-01-10T12:00:00Z' };
    expect(needsNewTermsDecision({ ...decided, version: '2026-02' }, '2026-02')).toBe(false);
    expect(needsNewTermsDecision({ ...decided, version: '2026-02' }, '2026-12-01')).toBe(true);
    expect(needsNewTermsDecision({ ...decided, agreement: 'rejected', version: '2026-02' }, '2026-02')).toBe(false);
    // A decision recorded before versions: asked again.
    expect(needsNewTermsDecision({ ...decided, version: null }, '2026-02')).toBe(true);
    expect(needsNewTermsDecision(null, '2026-02')).toBe(false);
    expect(needsNewTermsDecision({ agreement: null, event_date: null, version: null }, '2026-02')).toBe(false);
  });

  it('is not put to a member who decided on the version in force', async () => {
    await openMiClub();
    await waitFor(() => expect(sent.some((r) => r.path === '/api/terms-and-conditions')).toBe(true));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it('opens on /mi-club, and accepting records the version shown', async () => {
    publishNewVersion();
    server.use(
      http.post('/api/terms-and-conditions', () =>
        HttpResponse.json({
          terms_agreement: { agreement: 'accepted', event_date: '2026-12-02T12:00:00Z', version: '2026-12-01' },
          version: '2026-12-01',
        }),
      ),
    );
    const view = await openMiClub();
    const dialog = await screen.findByRole('dialog', { name: 'Actualizamos nuestros términos y condiciones' });
    expect(within(dialog).getByRole('heading', { name: NEW_VERSION.title })).toBeInTheDocument();
    await view.user.click(within(dialog).getByRole('button', { name: 'Aceptar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(decisions()[0]?.body).toEqual({ acceptTermsAndConditions: true, version: '2026-12-01' });
    expect(dataLayerEvents('terminos_y_condiciones_aceptado').at(-1)).toMatchObject({ version: '2026-12-01' });
  });

  it('asks again in the rejected-terms modal before rejecting, then records the rejection', async () => {
    publishNewVersion();
    server.use(
      http.post('/api/terms-and-conditions', () =>
        HttpResponse.json({
          terms_agreement: { agreement: 'rejected', event_date: '2026-12-02T12:00:00Z', version: '2026-12-01' },
          version: '2026-12-01',
        }),
      ),
    );
    const view = await openMiClub();
    const dialog = await screen.findByRole('dialog', { name: 'Actualizamos nuestros términos y condiciones' });
    await view.user.click(within(dialog).getByRole('button', { name: 'Rechazar' }));
    const confirm = await screen.findByRole('dialog', { name: '¿Quieres rechazar los términos y condiciones?' });
    expect(decisions()).toHaveLength(0);
    await view.user.click(within(confirm).getByRole('button', { name: 'Sí, rechazar' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(decisions()[0]?.body).toEqual({ acceptTermsAndConditions: false, version: '2026-12-01' });
  });

  it('is asked once per session: "Decidir más tarde" closes it and a reload does not reopen it', async () => {
    publishNewVersion();
    const first = await openMiClub();
    const dialog = await screen.findByRole('dialog', { name: 'Actualizamos nuestros términos y condiciones' });
    await first.user.click(within(dialog).getByRole('button', { name: 'Decidir más tarde' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    first.unmount();

    await openMiClub();
    await waitFor(() => expect(sent.filter((r) => r.path === '/api/terms-and-conditions').length).toBeGreaterThan(1));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(decisions()).toHaveLength(0);
  });

  it('shows the gateway message when a newer version came out meanwhile', async () => {
    publishNewVersion();
    server.use(
      http.post('/api/terms-and-conditions', () =>
        apiError('ERR_CONFLICT', {
          field: 'version',
          message: 'Los términos y condiciones cambiaron mientras los leías. Revisa la nueva versión.',
        }),
      ),
    );
    const view = await openMiClub();
    const dialog = await screen.findByRole('dialog', { name: 'Actualizamos nuestros términos y condiciones' });
    await view.user.click(within(dialog).getByRole('button', { name: 'Aceptar' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('cambiaron mientras los leías');
  });
});
