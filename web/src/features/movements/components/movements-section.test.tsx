import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { apiError } from '@/testing/api-errors';
import { MOCK_NOW } from '@/testing/fixtures/account';
import { brunoProfile } from '@/testing/fixtures/session';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { currentUrl, dataLayerEvents, loginAs, renderAccountSection, renderApp } from '@/testing/test-utils';

function movementRequests() {
  return sent.filter((r) => r.path === '/api/movements');
}

function select(label: 'Mes' | 'Año'): HTMLSelectElement {
  return screen.getByLabelText(label);
}

function optionLabels(element: HTMLSelectElement) {
  return within(element)
    .getAllByRole('option')
    .map((option) => option.textContent);
}

async function listItems() {
  const list = await screen.findByRole('list', { name: /^Movimientos de / });
  return within(list).getAllByTestId('movement');
}

/** The query strings of the months asked for, in order. */
function queries() {
  return movementRequests().map((request) => request.query);
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: MOCK_NOW });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Mis Movimientos', () => {
  it('starts on the current month in Santiago and offers the last 24 months', async () => {
    await renderAccountSection('Mis Movimientos');
    expect(select('Mes')).toHaveDisplayValue('Noviembre');
    expect(select('Año')).toHaveDisplayValue('2026');
    expect(optionLabels(select('Año'))).toEqual(['2026', '2025', '2024']);
    expect(optionLabels(select('Mes'))).toHaveLength(11);
    await listItems();
    expect(queries()).toEqual(['year=2026&month=11&page=1']);
  });

  it('counts the month in Santiago: just after midnight UTC on the 1st it is still the month before', async () => {
    vi.setSystemTime(new Date('2026-12-01T02:00:00Z'));
    await renderAccountSection('Mis Movimientos');
    expect(select('Mes')).toHaveDisplayValue('Noviembre');
    expect(select('Año')).toHaveDisplayValue('2026');
  });

  it('shows each movement with its es-CL date, description, signed pesos, kind and status, newest first', async () => {
    await renderAccountSection('Mis Movimientos');
    const items = await listItems();
    expect(items.map((item) => item.querySelector('.movement__description')?.textContent)).toEqual([
      'Compra en Lider Providencia',
      'Ajuste por reclamo',
      'Compra en Lider.cl',
    ]);
    const [pending, adjustment] = items as [HTMLElement, HTMLElement];
    expect(within(pending).getByText('20 de noviembre de 2026')).toBeInTheDocument();
    expect(within(pending).getByText('$1.250')).toBeInTheDocument();
    expect(within(pending).getByText('Acumulación')).toBeInTheDocument();
    expect(within(pending).getByText('Pendiente')).toBeInTheDocument();
    expect(within(adjustment).getByText('Ajuste')).toBeInTheDocument();
    expect(within(adjustment).getByText('Confirmado')).toBeInTheDocument();
    // Three movements fit on one page: no pagination.
    expect(screen.queryByRole('navigation', { name: 'Páginas de movimientos' })).not.toBeInTheDocument();
  });

  it('pages through a month of 13 movements, 10 then 3', async () => {
    const { user } = await renderAccountSection('Mis Movimientos');
    await listItems();
    await user.selectOptions(select('Mes'), 'Octubre');
    expect(dataLayerEvents('historial_cambio_fecha')).toEqual([{ event: 'historial_cambio_fecha', mes: 10, anio: 2026 }]);
    const pager = await screen.findByRole('navigation', { name: 'Páginas de movimientos' });
    expect(pager).toHaveTextContent('Página 1 de 2');
    expect(await listItems()).toHaveLength(10);
    expect(within(pager).getByRole('button', { name: 'Anterior' })).toBeDisabled();

    await user.click(within(pager).getByRole('button', { name: 'Siguiente' }));
    await waitFor(() => expect(pager).toHaveTextContent('Página 2 de 2'));
    const second = await listItems();
    expect(second).toHaveLength(3);
    expect(within(second[2] as HTMLElement).getByText('1 de octubre de 2026')).toBeInTheDocument();
    expect(within(pager).getByRole('button', { name: 'Siguiente' })).toBeDisabled();
    // The reader continues at the top of the new page.
    await waitFor(() => expect(screen.getByRole('heading', { level: 3, name: 'Octubre 2026' })).toHaveFocus());

    await user.click(within(pager).getByRole('button', { name: 'Anterior' }));
    await waitFor(() => expect(pager).toHaveTextContent('Página 1 de 2'));
    const first = await listItems();
    expect(first.map((item) => within(item).queryByText('-$2.000'))).toContainEqual(expect.anything());
    expect(queries().slice(0, 3)).toEqual([
      'year=2026&month=11&page=1',
      'year=2026&month=10&page=1',
      'year=2026&month=10&page=2',
    ]);
  });

  it('keeps the month and the page in the address, leaving out the defaults', async () => {
    const { user } = await renderAccountSection('Mis Movimientos');
    await listItems();
    expect(currentUrl()).toBe('/mi-club/movimientos');
    await user.selectOptions(select('Mes'), 'Octubre');
    await waitFor(() => expect(currentUrl()).toBe('/mi-club/movimientos?mes=2026-10'));
    const pager = await screen.findByRole('navigation', { name: 'Páginas de movimientos' });
    await user.click(within(pager).getByRole('button', { name: 'Siguiente' }));
    await waitFor(() => expect(currentUrl()).toBe('/mi-club/movimientos?mes=2026-10&pagina=2'));
    await user.click(within(pager).getByRole('button', { name: 'Anterior' }));
    await waitFor(() => expect(currentUrl()).toBe('/mi-club/movimientos?mes=2026-10'));
  });

  it('opens the month and page an address names', async () => {
    loginAs();
    renderApp('/mi-club/movimientos?mes=2026-10&pagina=2');
    const pager = await screen.findByRole('navigation', { name: 'Páginas de movimientos' });
    await waitFor(() => expect(pager).toHaveTextContent('Página 2 de 2'));
    expect(select('Mes')).toHaveDisplayValue('Octubre');
    expect(await listItems()).toHaveLength(3);
    expect(queries()).toEqual(['year=2026&month=10&page=2']);
  });

  it.each([
    ['mes=2026-13', 'a month that does not exist'],
    ['mes=2020-01', 'a month older than the 24 offered'],
    ['mes=2027-01', 'a month still to come'],
    ['mes=octubre&pagina=dos', 'words'],
    ['mes=2026-11&pagina=0', 'page 0'],
    ['mes=2026-11&pagina=-1', 'a negative page'],
    ['mes=2026-11&pagina=99999999999999999999', 'a page beyond any number'],
    ['pagina=1.5', 'a fraction'],
    ['mes=%00&pagina=%3Cscript%3E', 'markup and control characters'],
  ])('falls back to the current month and page 1 for ?%s (%s)', async (query) => {
    loginAs();
    renderApp(`/mi-club/movimientos?${query}`);
    await listItems();
    expect(select('Mes')).toHaveDisplayValue('Noviembre');
    expect(select('Año')).toHaveDisplayValue('2026');
    expect(queries()).toEqual(['year=2026&month=11&page=1']);
  });

  it('shows the last page of the month for a page past it', async () => {
    // As the gateway answers a page past the last: no items, and the month's real page count.
    server.use(
      http.get('/api/movements', ({ request }) => {
        const query = new URL(request.url).searchParams;
        if (query.get('page') !== '7') return undefined;
        return HttpResponse.json({ year: 2026, month: 10, page: 7, pageSize: 10, totalCount: 13, totalPages: 2, items: [] });
      }),
    );
    loginAs();
    renderApp('/mi-club/movimientos?mes=2026-10&pagina=7');
    await waitFor(() => expect(currentUrl()).toBe('/mi-club/movimientos?mes=2026-10&pagina=2'));
    await waitFor(() =>
      expect(screen.getByRole('navigation', { name: 'Páginas de movimientos' })).toHaveTextContent('Página 2 de 2'),
    );
    expect(await listItems()).toHaveLength(3);
  });

  it('keeps the month within the 24 offered when the year changes, and pushes the change', async () => {
    const { user } = await renderAccountSection('Mis Movimientos');
    await listItems();
    await user.selectOptions(select('Año'), '2024');
    expect(select('Mes')).toHaveDisplayValue('Diciembre');
    expect(optionLabels(select('Mes'))).toEqual(['Diciembre']);
    expect(dataLayerEvents('historial_cambio_fecha').at(-1)).toEqual({ event: 'historial_cambio_fecha', mes: 12, anio: 2024 });
    await user.selectOptions(select('Año'), '2025');
    expect(select('Mes')).toHaveDisplayValue('Diciembre');
    expect(optionLabels(select('Mes'))).toHaveLength(12);
  });

  it('says so when the month has no movements', async () => {
    const { user } = await renderAccountSection('Mis Movimientos');
    await listItems();
    await user.selectOptions(select('Mes'), 'Septiembre');
    expect(await screen.findByText('No tienes movimientos en este mes.')).toBeInTheDocument();
    expect(screen.queryByRole('list', { name: /^Movimientos de / })).not.toBeInTheDocument();
  });

  it('shows a loading state while the month is on its way', async () => {
    server.use(
      http.get('/api/movements', async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    await renderAccountSection('Mis Movimientos');
    expect(await screen.findByText('Cargando tus movimientos…')).toBeInTheDocument();
  });

  it('shows a failure with a retry', async () => {
    server.use(http.get('/api/movements', () => apiError('ERR_UNAVAILABLE')));
    const { user } = await renderAccountSection('Mis Movimientos');
    expect(await screen.findByRole('alert')).toHaveTextContent('No pudimos cargar tus movimientos. Intenta de nuevo más tarde.');
    server.resetHandlers();
    await user.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await listItems()).toHaveLength(3);
  });

  it('shows the without-account state on 406', async () => {
    server.use(
      http.get('/api/balance', () => apiError('ERR_NO_CLUB_ACCOUNT')),
      http.get('/api/movements', () => apiError('ERR_NO_CLUB_ACCOUNT')),
    );
    await renderAccountSection('Mis Movimientos', { profile: brunoProfile });
    expect(await screen.findByText('Aún no tienes una cuenta Mi Club.')).toBeInTheDocument();
    expect(screen.queryByLabelText('Mes')).not.toBeInTheDocument();
    expect(movementRequests()).toHaveLength(1);
  });
});
