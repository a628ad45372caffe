import { render, screen, waitFor, within } from '@testing-library/react';
import { http } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { AccrualBreakdown } from '@/components/accrual-breakdown';
import { apiError } from '@/testing/api-errors';
import { MOCK_NOW, novemberPurchaseDetail } from '@/testing/fixtures/account';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { currentUrl, loginAs, renderAccountSection, renderApp } from '@/testing/test-utils';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: MOCK_NOW });
});

afterEach(() => {
  vi.useRealTimers();
});

function detailRequests() {
  return sent.filter((r) => r.path.startsWith('/api/movements/'));
}

async function openDetail(path: string) {
  loginAs();
  const view = renderApp(path);
  await screen.findByRole('link', { name: 'Volver a Mis Movimientos' }, { timeout: 4_000 });
  return view;
}

describe('a movement explained', () => {
  it('opens from an accrual of the list at its own address and comes back to the same month', async () => {
    const { user } = await renderAccountSection('Mis Movimientos');
    const list = await screen.findByRole('list', { name: /^Movimientos de / });
    // Only accruals open an explanation.
    expect(within(list).queryByRole('link', { name: /Ajuste por reclamo/ })).not.toBeInTheDocument();
    await user.click(
      within(list).getByRole('link', { name: 'Ver detalle de Compra en Lider Providencia del 20 de noviembre de 2026' }),
    );
    await waitFor(() => expect(currentUrl()).toBe('/mi-club/movimientos/nov-3'));
    expect(await screen.findByRole('heading', { level: 2, name: 'Compra en Lider Providencia' })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Detalle del movimiento · Mi Club'));
    await user.click(screen.getByRole('link', { name: 'Volver a Mis Movimientos' }));
    await waitFor(() => expect(currentUrl()).toBe('/mi-club/movimientos'));
  });

  it('shows the lines by category with rule, rate and pesos adding up to the movement, pending until its date', async () => {
    await openDetail('/mi-club/movimientos/nov-3');
    expect(await screen.findByTestId('movement-amount')).toHaveTextContent('$1.250');
    expect(screen.getByTestId('movement-status-line')).toHaveTextContent(
      'Pendiente: se suma a tu saldo el 4 de diciembre de 2026, cuando termina el plazo para devolver la compra.',
    );
    const table = screen.getByRole('table', { name: 'Pesos acumulados por categoría' });
    const rows = within(table).getAllByRole('row').map((row) => row.textContent);
    expect(rows).toEqual([
      'CategoríaMontoReglaAcumulaste',
      'Bebidas$40.000Viernes 2% en bebidas (2%)$800',
      'Carnes$30.0000,9% en todas tus compras con tarjeta Lider BCI (0,9%)$270',
      'Otros productos$20.0000,9% en todas tus compras con tarjeta Lider BCI (0,9%)$180',
      'Total$90.000$1.250',
    ]);
    expect(screen.getByTestId('breakdown-total')).toHaveTextContent('$1.250');
    const purchase = screen.getByRole('region', { name: 'Tu compra' });
    expect(within(purchase).getByText('Viernes 20 de noviembre de 2026')).toBeInTheDocument();
    expect(within(purchase).getByText('Tarjeta Lider BCI')).toBeInTheDocument();
    // The purchase's total, and the breakdown's lines adding up to it.
    expect(within(purchase).getAllByText('$90.000')).toHaveLength(2);
    expect(screen.getByText(/versión 2026-11-2/)).toBeInTheDocument();
    expect(detailRequests().map((r) => r.path)).toEqual(['/api/movements/nov-3']);
  });

  it('draws its breakdown with the table the simulator uses too, components/accrual-breakdown', async () => {
    await openDetail('/mi-club/movimientos/nov-3');
    const table = await screen.findByRole('table', { name: 'Pesos acumulados por categoría' });
    // The simulator's headers, but for the pesos: earned already here ("Acumulaste").
    expect(within(table).getAllByRole('columnheader').map((header) => header.textContent)).toEqual([
      'Categoría',
      'Monto',
      'Regla',
      'Acumulaste',
    ]);
    // Exactly what the shared component draws for the purchase's lines, with their total: not a copy.
    const shared = render(
      <AccrualBreakdown
        lines={novemberPurchaseDetail.purchase?.lines ?? []}
        caption="Pesos acumulados por categoría"
        earnedLabel="Acumulaste"
        showTotal
      />,
    );
    expect(table.outerHTML).toBe(shared.container.innerHTML);
  });

  it('says when a purchase has no breakdown and when it was confirmed', async () => {
    await openDetail('/mi-club/movimientos/nov-1');
    expect(await screen.findByTestId('movement-status-line')).toHaveTextContent('Confirmado el 16 de noviembre de 2026.');
    expect(screen.getByText('El detalle por categoría no está disponible para esta compra.')).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('answers an id that is not the member’s, or malformed, with a Spanish not-found, not an error', async () => {
    await openDetail('/mi-club/movimientos/de-otra-persona');
    expect(
      await screen.findByText('No encontramos este movimiento entre los tuyos. Revisa el enlace o vuelve a tus movimientos.'),
    ).toBeInTheDocument();
  });

  it('offers to try again when the gateway fails', async () => {
    server.use(http.get('/api/movements/:movementId', () => apiError('ERR_UNAVAILABLE')));
    const { user } = await openDetail('/mi-club/movimientos/nov-3');
    expect(
      await screen.findByText('No pudimos cargar el detalle de este movimiento. Intenta de nuevo más tarde.', {}, { timeout: 6_000 }),
    ).toBeInTheDocument();
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByTestId('movement-amount')).toHaveTextContent('$1.250');
  });
});
