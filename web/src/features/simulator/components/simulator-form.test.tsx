import { render, screen, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';

import { AccrualBreakdown } from '@/components/accrual-breakdown';
import { apiError, FIELD_MESSAGES } from '@/testing/api-errors';
import { mondayPartnerCardResult, tuesdayCartResult, tuesdayFruitsResult } from '@/testing/fixtures/content';
import { sent } from '@/testing/mocks/requests';
import { server } from '@/testing/mocks/server';
import { dataLayerEvents, loginAs, renderApp } from '@/testing/test-utils';

import { SIMULATOR_FAILED } from './simulator-form';

async function openSimulator(path = '/promociones') {
  const view = renderApp(path);
  const section = await screen.findByRole('region', { name: 'Simulador de acumulación' });
  return { ...view, section };
}

function simulatorRequests() {
  return sent.filter((r) => r.path === '/api/simulator');
}

describe('the simulator', () => {
  it('computes a Tuesday cart of fruits and vegetables at 3% with its breakdown', async () => {
    const { user, section } = await openSimulator();
    await user.selectOptions(within(section).getByLabelText('Día de la compra'), 'Martes');
    await user.type(within(section).getByLabelText('Frutas y verduras'), '10000');
    expect(within(section).getByLabelText('Frutas y verduras')).toHaveValue('$10.000');
    await user.type(within(section).getByLabelText('Carnes'), '5000');
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    expect(await within(section).findByTestId('simulator-total')).toHaveTextContent('Acumularías $340');
    const rows = within(section).getAllByRole('row').slice(1);
    expect(rows.map((row) => row.textContent)).toEqual([
      'Carnes$5.0000,8% en todas tus compras (0,8%)$40',
      'Frutas y verduras$10.000Martes 3% en frutas y verduras (3%)$300',
    ]);
    expect(simulatorRequests()[0]?.body).toEqual({
      weekDay: 2,
      meatAmount: 5000,
      fruitsAndVegetablesAmount: 10000,
      cleaningAmount: 0,
      drinksAmount: 0,
      otherAmount: 0,
      partnerCard: false,
    });
    expect(simulatorRequests()[0]?.headers['x-miclub-csrf']).toBe('1');
  });

  it('draws its breakdown with the table the movement detail uses too, components/accrual-breakdown', async () => {
    const { user, section } = await openSimulator();
    await user.selectOptions(within(section).getByLabelText('Día de la compra'), 'Martes');
    await user.type(within(section).getByLabelText('Carnes'), '5000');
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    await within(section).findByTestId('simulator-total');
    const table = within(section).getByRole('table', { name: 'Detalle por categoría' });
    // The movement detail's headers, but for the pesos: estimated here ("Acumulas").
    expect(within(table).getAllByRole('columnheader').map((header) => header.textContent)).toEqual([
      'Categoría',
      'Monto',
      'Regla',
      'Acumulas',
    ]);
    // Exactly what the shared component draws for the answer's lines with an amount: not a copy.
    const shared = render(
      <AccrualBreakdown lines={tuesdayCartResult.lines.filter((line) => line.amount > 0)} caption="Detalle por categoría" />,
    );
    expect(table.outerHTML).toBe(shared.container.innerHTML);
  });

  it('sends the partner card and shows the Monday 6% discount apart from the pesos earned', async () => {
    server.use(http.post('/api/simulator', () => HttpResponse.json(mondayPartnerCardResult)));
    const { user, section } = await openSimulator();
    await user.selectOptions(within(section).getByLabelText('Día de la compra'), 'Lunes');
    await user.type(within(section).getByLabelText('Otros productos'), '20000');
    await user.click(within(section).getByRole('checkbox', { name: 'Pago con Tarjeta Lider BCI' }));
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    expect(await within(section).findByTestId('simulator-total')).toHaveTextContent('Acumularías $180');
    expect(within(section).getByTestId('simulator-discount')).toHaveTextContent(
      'Descuento en caja: $1.200 menos (Lunes 6% de descuento con Tarjeta Lider BCI). Es un descuento en el precio, no se suma a los pesos que acumulas.',
    );
  });

  it('keeps only digits while typing and formats them with dots', async () => {
    const { user, section } = await openSimulator();
    const field = within(section).getByLabelText('Bebidas');
    await user.type(field, '1a2-3456');
    expect(field).toHaveValue('$123.456');
    await user.clear(field);
    expect(field).toHaveValue('');
    await user.type(field, '$12.345');
    expect(field).toHaveValue('$12.345');
  });

  it('refuses a decimal under its field in Spanish and sends nothing', async () => {
    const { user, section } = await openSimulator();
    await user.selectOptions(within(section).getByLabelText('Día de la compra'), 'Martes');
    const field = within(section).getByLabelText('Carnes');
    await user.type(field, '12.345,5');
    expect(field).toHaveValue('$12.345,5');
    expect(within(section).getByText('Ingresa el monto en pesos, sin decimales.')).toBeInTheDocument();
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    expect(within(section).getByText('Ingresa el monto en pesos, sin decimales.')).toBeInTheDocument();
    expect(simulatorRequests()).toEqual([]);
    await user.clear(field);
    await user.type(field, '12345');
    expect(field).toHaveValue('$12.345');
    expect(within(section).queryByText('Ingresa el monto en pesos, sin decimales.')).toBeNull();
  });

  it('pushes simulador_calcular with the weekday and the five amounts', async () => {
    const { user, section } = await openSimulator();
    await user.selectOptions(within(section).getByLabelText('Día de la compra'), 'Viernes');
    await user.type(within(section).getByLabelText('Bebidas'), '3000');
    await user.type(within(section).getByLabelText('Limpieza'), '2000');
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    await within(section).findByTestId('simulator-total');
    expect(dataLayerEvents('simulador_calcular')).toEqual([
      {
        event: 'simulador_calcular',
        weekDay: 5,
        meatAmount: 0,
        fruitsAndVegetablesAmount: 0,
        cleaningAmount: 2000,
        drinksAmount: 3000,
        otherAmount: 0,
        partnerCard: false,
      },
    ]);
  });

  it('asks for the weekday and an amount before sending anything', async () => {
    const { user, section } = await openSimulator();
    await user.type(within(section).getByLabelText('Carnes'), '1000');
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    const day = within(section).getByLabelText('Día de la compra');
    expect(day).toHaveAttribute('aria-invalid', 'true');
    expect(day).toHaveAccessibleDescription('Elige un día de la semana.');
    await user.selectOptions(day, 'Domingo');
    await user.clear(within(section).getByLabelText('Carnes'));
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent('Ingresa al menos un monto.');
    expect(day).not.toHaveAttribute('aria-invalid');
    expect(simulatorRequests()).toHaveLength(0);
    expect(dataLayerEvents('simulador_calcular')).toHaveLength(0);
  });

  it('refuses an amount above $10.000.000 under its field', async () => {
    const { user, section } = await openSimulator();
    await user.selectOptions(within(section).getByLabelText('Día de la compra'), 'Martes');
    await user.type(within(section).getByLabelText('Carnes'), '10000001');
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    expect(within(section).getByLabelText('Carnes')).toHaveAccessibleDescription(
      'El monto máximo por categoría es $10.000.000.',
    );
    expect(simulatorRequests()).toHaveLength(0);
  });

  it('puts a field error of the gateway under its field', async () => {
    server.use(
      http.post('/api/simulator', () =>
        apiError('ERR_INVALID_ARGUMENT', { field: 'drinksAmount', message: FIELD_MESSAGES.simulatorTooLarge }),
      ),
    );
    const { user, section } = await openSimulator();
    await user.selectOptions(within(section).getByLabelText('Día de la compra'), 'Martes');
    await user.type(within(section).getByLabelText('Bebidas'), '1000');
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    expect(await within(section).findByText(FIELD_MESSAGES.simulatorTooLarge)).toBeInTheDocument();
    expect(within(section).getByLabelText('Bebidas')).toHaveAttribute('aria-invalid', 'true');
  });

  it('shows a generic failure when the gateway fails, and shows the result on the next try', async () => {
    server.use(http.post('/api/simulator', () => apiError('ERR_INTERNAL')));
    const { user, section } = await openSimulator();
    await user.selectOptions(within(section).getByLabelText('Día de la compra'), 'Martes');
    await user.type(within(section).getByLabelText('Frutas y verduras'), '10000');
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent(SIMULATOR_FAILED);
    server.use(http.post('/api/simulator', () => HttpResponse.json(tuesdayFruitsResult)));
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    expect(await within(section).findByTestId('simulator-total')).toHaveTextContent('Acumularías $300');
    expect(within(section).queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows that it is calculating', async () => {
    server.use(
      http.post('/api/simulator', async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const { user, section } = await openSimulator();
    await user.selectOptions(within(section).getByLabelText('Día de la compra'), 'Martes');
    await user.type(within(section).getByLabelText('Carnes'), '1000');
    await user.click(within(section).getByRole('button', { name: 'Calcular' }));
    expect(within(section).getByRole('button', { name: 'Calcular' })).toHaveAttribute('aria-busy', 'true');
  });

  it('is also in Mi Cuenta, below the balance', async () => {
    loginAs();
    renderApp('/mi-club');
    await screen.findByTestId('balance-amount');
    expect(await screen.findByRole('region', { name: 'Simulador de acumulación' })).toBeInTheDocument();
  });
});
