import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { anaMissions } from '@/testing/fixtures/content';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { accountMenuLink, renderAccountSection } from '@/testing/test-utils';

import { MISSIONS_CONFLICT, MISSIONS_EMPTY, MISSIONS_FAILED, progressText } from './missions-section';

function missionCard(title: string) {
  return screen.getByRole('heading', { level: 3, name: title }).closest('li') as HTMLElement;
}

describe('the progress text', () => {
  it('writes amounts in pesos and purchases as a count', () => {
    expect(progressText({ goalKind: 'amount', goal: 20000, progress: 12000 })).toBe('$12.000 de $20.000');
    expect(progressText({ goalKind: 'purchases', goal: 3, progress: 2 })).toBe('2 de 3 compras');
    expect(progressText({ goalKind: 'purchases', goal: 1, progress: 0 })).toBe('0 de 1 compra');
    expect(progressText({ goalKind: 'amount', goal: 1000, progress: 5000 })).toBe('$1.000 de $1.000');
  });
});

describe('Misiones', () => {
  it('shows each mission with icon, progress bar, reward and end date', async () => {
    await renderAccountSection('Misiones');
    await screen.findByRole('heading', { level: 3, name: 'Misión parrillera' });
    const card = missionCard('Misión parrillera');
    expect(within(card).getByText('Compra $20.000 en carnes')).toBeInTheDocument();
    const bar = within(card).getByRole('progressbar', { name: 'Misión parrillera' });
    expect(bar).toHaveAttribute('aria-valuenow', '12000');
    expect(bar).toHaveAttribute('aria-valuemin', '0');
    expect(bar).toHaveAttribute('aria-valuemax', '20000');
    expect(bar).toHaveAttribute('aria-valuetext', '$12.000 de $20.000');
    expect(within(card).getByText('$12.000 de $20.000')).toBeInTheDocument();
    expect(within(card).getByText('$1.000')).toBeInTheDocument();
    expect(within(card).getByText(/^Termina el 31 de diciembre/)).toBeInTheDocument();
    // The category's pictogram, named once by the category.
    expect(within(card).getAllByRole('img')).toHaveLength(1);
    expect(within(card).getByRole('img', { name: 'Carnes de vacuno' })).toHaveAttribute('data-icon', 'beef');

    const byPurchases = missionCard('Cocina con aceite');
    expect(within(byPurchases).getByText('2 de 3 compras')).toBeInTheDocument();
    expect(within(byPurchases).getByRole('img', { name: 'Aceites' })).toHaveAttribute('data-icon', 'oils');
    expect(within(missionCard('Brindis de fin de año')).getByRole('img', { name: 'Licores' })).toBeInTheDocument();
    expect(within(missionCard('Renueva tu ropa')).getByRole('img', { name: 'Vestuario' })).toBeInTheDocument();
    // Category 99 is unknown: the default mission logo.
    const unknown = within(missionCard('Misión sorpresa')).getByRole('img', { name: 'Misión' });
    expect(unknown).toHaveAttribute('data-icon', 'default-mission');
  });

  it('marks completed and expired missions', async () => {
    await renderAccountSection('Misiones');
    await screen.findByRole('heading', { level: 3, name: 'Brindis de fin de año' });
    expect(within(missionCard('Brindis de fin de año')).getByText('Completada')).toBeInTheDocument();
    const expired = missionCard('Renueva tu ropa');
    expect(within(expired).getByText('Vencida')).toBeInTheDocument();
    expect(within(expired).getByText(/^Terminó el 31 de octubre/)).toBeInTheDocument();
    expect(within(missionCard('Misión parrillera')).queryByText('Completada')).not.toBeInTheDocument();
  });

  it('shows a loading state while the missions are on their way', async () => {
    server.use(
      http.get('/api/missions', async () => {
        await delay('infinite');
        return HttpResponse.json({ missions: [] });
      }),
    );
    await renderAccountSection('Misiones');
    expect(await screen.findByText('Cargando tus misiones…')).toBeInTheDocument();
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument();
  });

  it('says so when the member has no missions in force', async () => {
    server.use(http.get('/api/missions', () => HttpResponse.json({ missions: [] })));
    await renderAccountSection('Misiones');
    expect(await screen.findByText(MISSIONS_EMPTY)).toBeInTheDocument();
  });

  it('shows the conflict state on 409 and restarts with the retry', async () => {
    server.use(http.get('/api/missions', () => apiError('ERR_MISSIONS_NOT_READY')));
    const { user } = await renderAccountSection('Misiones');
    expect(await screen.findByText(MISSIONS_CONFLICT)).toBeInTheDocument();
    expect(screen.queryByText(MISSIONS_FAILED)).not.toBeInTheDocument();
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByRole('heading', { level: 3, name: 'Misión parrillera' })).toBeInTheDocument();
    expect(screen.queryByText(MISSIONS_CONFLICT)).not.toBeInTheDocument();
    expect(sent.filter((r) => r.path === '/api/missions')).toHaveLength(2);
  });

  it('shows the generic failure on other errors and restarts with the retry', async () => {
    server.use(http.get('/api/missions', () => apiError('ERR_INTERNAL')));
    const { user } = await renderAccountSection('Misiones');
    expect(await screen.findByRole('alert')).toHaveTextContent(MISSIONS_FAILED);
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByRole('heading', { level: 3, name: 'Misión parrillera' })).toBeInTheDocument();
  });

  it('asks again every time the section is opened', async () => {
    const { user } = await renderAccountSection('Misiones');
    await screen.findByRole('heading', { level: 3, name: 'Misión parrillera' });
    const [first, ...others] = anaMissions.missions;
    server.use(http.get('/api/missions', () => HttpResponse.json({ missions: [{ ...first!, progress: 18000 }, ...others] })));
    await user.click(accountMenuLink('Mi Cuenta'));
    await user.click(accountMenuLink('Misiones'));
    await waitFor(() =>
      expect(within(missionCard('Misión parrillera')).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '18000'),
    );
  });
});
