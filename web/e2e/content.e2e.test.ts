/**
 * Promotions, partner benefits, FAQs and the simulator against the standalone binary, with the
 * content seeded from services/content/data and the accrual rules of accrual/rules/default.toml.
 * No session is needed for any of them.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import { dataLayer, screenshots } from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

let miclub: Miclub;
let browser: Browser;

beforeAll(async () => {
  miclub = await startMiclub();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await miclub?.stop();
});

/** A page that never leaves for the chain's marketing sites (links out are aborted). */
async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(DESKTOP);
  await context.route(
    (url) => !url.href.startsWith(miclub.baseUrl),
    (route) => route.abort(),
  );
  return { context, page: await context.newPage() };
}

function card(page: Page, title: string) {
  return page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 2, name: title, exact: true }) });
}

describe(`content pages against ${PORTAL_UNDER_TEST}`, () => {
  it('lists the promotions and pushes their selection and click events', async () => {
    const { context, page } = await newPage();
    try {
      const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/promotions');
      await page.goto(`${miclub.baseUrl}/promociones`);
      const response = await answer;
      expect(response.status()).toBe(200);
      expect(response.headers()['cache-control']).toContain('max-age=60');
      await page.getByRole('heading', { level: 1, name: 'Promociones' }).waitFor();
      const tuesday = card(page, 'Martes de frutas y verduras');
      await tuesday.waitFor();
      expect(await tuesday.getByText('Martes 3%', { exact: true }).isVisible()).toBe(true);
      expect(await tuesday.locator('img').getAttribute('src')).toBe('/images/promociones/frutas-y-verduras.svg');
      // The seeded images are served by the web app.
      const image = await page.request.get(`${miclub.baseUrl}/images/promociones/frutas-y-verduras.svg`);
      expect(image.status()).toBe(200);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshots(page, 'promociones');

      await tuesday.getByRole('button', { name: /Ver detalle/ }).click();
      expect(await tuesday.getByText(/^Válida/).isVisible()).toBe(true);
      // Ctrl+click: the link opens in a new tab, this page (and its data layer) stays.
      const popup = context.waitForEvent('page');
      await tuesday.getByRole('link', { name: /Ver promoción/ }).click({ modifiers: ['Control'] });
      await (await popup).close();
      const events = (await dataLayer(page)).filter((entry) => String(entry.event).startsWith('promocion_'));
      expect(events).toEqual([
        { event: 'promocion_seleccion', promocion_id: 'frutas-y-verduras', promocion_titulo: 'Martes de frutas y verduras' },
        { event: 'promocion_click', promocion_id: 'frutas-y-verduras', promocion_titulo: 'Martes de frutas y verduras' },
      ]);
    } finally {
      await context.close();
    }
  });

  it('lists the partner benefits with their conditions', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/alianzas`);
      await page.getByRole('heading', { level: 1, name: 'Alianzas' }).waitFor();
      const monday = card(page, 'Lunes 6% de descuento con Tarjeta Lider BCI');
      await monday.waitFor();
      expect(await monday.getByRole('heading', { level: 3, name: 'Condiciones' }).isVisible()).toBe(true);
      expect(await page.getByRole('heading', { level: 2 }).count()).toBeGreaterThanOrEqual(4);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshots(page, 'alianzas');
    } finally {
      await context.close();
    }
  });

  it('accepts Chilean amounts, formats them as typed and refuses a decimal in Spanish', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/promociones`);
      const simulator = page.getByRole('region', { name: 'Simulador de acumulación' });
      await simulator.waitFor();
      await simulator.getByLabel('Día de la compra').selectOption({ label: 'Jueves' });
      const meat = simulator.getByLabel('Carnes', { exact: true });
      const drinks = simulator.getByLabel('Bebidas', { exact: true });
      await meat.pressSequentially('$12.345');
      expect(await meat.inputValue()).toBe('$12.345');
      await drinks.pressSequentially('12345');
      expect(await drinks.inputValue()).toBe('$12.345');

      // "12.345,5" is a decimal, refused under its field, never read as $123.455.
      await drinks.fill('');
      await drinks.pressSequentially('12.345,5');
      await simulator.getByText('Ingresa el monto en pesos, sin decimales.').waitFor();
      let asked = 0;
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/api/simulator') asked += 1;
      });
      await simulator.getByRole('button', { name: 'Calcular' }).click();
      await simulator.getByText('Ingresa el monto en pesos, sin decimales.').waitFor();
      expect(asked).toBe(0);

      // Corrected, the cart goes out with whole pesos: 0,8% of $12.345 + $12.345.
      await drinks.fill('');
      await drinks.pressSequentially('$12.345');
      const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/simulator');
      await simulator.getByRole('button', { name: 'Calcular' }).click();
      const request = (await answer).request().postDataJSON() as Record<string, unknown>;
      expect([request.meatAmount, request.drinksAmount]).toEqual([12345, 12345]);
      expect(await simulator.getByTestId('simulator-total').innerText()).toBe('Acumularías $196');
      expect(await simulator.getByTestId('simulator-discount').count()).toBe(0);
    } finally {
      await context.close();
    }
  });

  it('reaches the login FAQs from /login and opens an answer', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/login`);
      await page.getByRole('link', { name: 'Preguntas frecuentes', exact: true }).click();
      await page.waitForURL('**/preguntas-login');
      await page.getByRole('heading', { level: 1, name: 'Preguntas frecuentes para iniciar sesión' }).waitFor();
      const first = page.locator('details').first();
      await first.waitFor();
      expect(await first.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(false);
      await first.locator('summary').click();
      expect(await first.evaluate((element) => (element as HTMLDetailsElement).open)).toBe(true);
      expect((await first.locator('.faq__answer').innerText()).trim().length).toBeGreaterThan(0);
      expect(await seriousViolations(page)).toEqual([]);

      // The footer's FAQ link leads to the general FAQs.
      await page.getByRole('contentinfo').getByRole('link', { name: 'Preguntas frecuentes', exact: true }).click();
      await page.getByRole('heading', { level: 1, name: 'Preguntas frecuentes', exact: true }).waitFor();
      await page.locator('details').first().waitFor();
    } finally {
      await context.close();
    }
  });

  it('simulates a Tuesday cart: $10.000 in fruits and vegetables earns 3%, $300', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/promociones`);
      const simulator = page.getByRole('region', { name: 'Simulador de acumulación' });
      await simulator.waitFor();
      await simulator.getByLabel('Día de la compra').selectOption({ label: 'Martes' });
      const fruits = simulator.getByLabel('Frutas y verduras', { exact: true });
      await fruits.pressSequentially('10000');
      expect(await fruits.inputValue()).toBe('$10.000');

      // Checked before sending: nothing goes out without a day.
      await simulator.getByLabel('Día de la compra').selectOption({ label: 'Elige un día' });
      await simulator.getByRole('button', { name: 'Calcular' }).click();
      await simulator.getByText('Elige un día de la semana.').waitFor();
      await simulator.getByLabel('Día de la compra').selectOption({ label: 'Martes' });

      const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/simulator');
      await simulator.getByRole('button', { name: 'Calcular' }).click();
      expect((await answer).status()).toBe(200);
      await simulator.getByTestId('simulator-total').waitFor();
      expect(await simulator.getByTestId('simulator-total').innerText()).toBe('Acumularías $300');
      const row = simulator.getByRole('row', { name: /Frutas y verduras/ });
      expect(await row.innerText()).toContain('Martes 3% en frutas y verduras');
      expect(await row.innerText()).toContain('$300');
      const pushed = (await dataLayer(page)).filter((entry) => entry.event === 'simulador_calcular');
      expect(pushed).toEqual([
        {
          event: 'simulador_calcular',
          weekDay: 2,
          meatAmount: 0,
          fruitsAndVegetablesAmount: 10000,
          cleaningAmount: 0,
          drinksAmount: 0,
          otherAmount: 0,
          partnerCard: false,
        },
      ]);

      // Monday with the partner card: the partner card's 0,9% of $20.000 earned, and the 6%
      // discount at the till on its own line, never added to the pesos earned.
      await simulator.getByLabel('Día de la compra').selectOption({ label: 'Lunes' });
      await fruits.fill('');
      await simulator.getByLabel('Otros productos', { exact: true }).pressSequentially('20000');
      await simulator.getByRole('checkbox', { name: 'Pago con Tarjeta Lider BCI' }).check();
      await simulator.getByRole('button', { name: 'Calcular' }).click();
      await simulator.getByText('Acumularías $180').waitFor();
      expect(await simulator.getByTestId('simulator-discount').innerText()).toContain(
        'Descuento en caja: $1.200 menos (Lunes 6% de descuento con Tarjeta Lider BCI).',
      );
      expect(await seriousViolations(page)).toEqual([]);
      await screenshots(page, 'simulador');
    } finally {
      await context.close();
    }
  });
});
