/**
 * Every peso explained (#21) against the real binary: a store system posts a purchase for Ana
 * over gRPC, Ana opens it from Mis Movimientos at its own address, and the lines by category,
 * each with its rule and rate, add up to the movement's amount, the same figures accounts gives
 * the store system. Another member cannot read it: the gateway answers them as for an unknown id.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import { memberMovementDetail, postPurchase, type PostedPurchase } from './support/grpc';
import { ANA, ANA_EMAIL, BRUNO, BRUNO_EMAIL, logIn, openSection, screenshots } from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

let miclub: Miclub;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let posted: PostedPurchase;

/** "$1.234" → 1234. */
function pesos(text: string | null): number {
  return Number((text ?? '').replace(/[^\d-]/g, ''));
}

beforeAll(async () => {
  miclub = await startMiclub();
  posted = await postPurchase(miclub, {
    memberDocument: ANA.user,
    paymentMethod: 'PAYMENT_METHOD_PARTNER_CARD',
    lines: [
      { category: 'CATEGORY_MEAT', amount: 20_000, product_category_id: 10 },
      { category: 'CATEGORY_FRUITS_AND_VEGETABLES', amount: 10_000, product_category_id: 0 },
      { category: 'CATEGORY_DRINKS', amount: 3_333, product_category_id: 34 },
    ],
  });
  browser = await launchBrowser();
  context = await browser.newContext(DESKTOP);
  page = await context.newPage();
  await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await miclub?.stop();
});

describe(`a movement explained against ${PORTAL_UNDER_TEST}`, () => {
  it('opens a posted purchase from Mis Movimientos and its lines add up to the movement', async () => {
    expect(posted.accrued).toBeGreaterThan(0);
    await openSection(page, 'Mis Movimientos');
    await page.getByRole('link', { name: /^Ver detalle de Compra en Lider e2e/ }).first().click();
    await page.waitForURL((url) => url.pathname === `/mi-club/movimientos/${posted.movement_id}`);
    const table = page.getByRole('table', { name: 'Pesos acumulados por categoría' });
    await table.waitFor();

    const amount = pesos(await page.getByTestId('movement-amount').textContent());
    expect(amount).toBe(posted.accrued);
    const rows = table.locator('tbody tr');
    expect(await rows.count()).toBe(3);
    const earned: number[] = [];
    for (let index = 0; index < 3; index += 1) earned.push(pesos(await rows.nth(index).locator('td').nth(2).textContent()));
    expect(earned.reduce((sum, value) => sum + value, 0)).toBe(amount);
    expect(pesos(await page.getByTestId('breakdown-total').textContent())).toBe(amount);
    expect(await page.getByTestId('movement-status-line').textContent()).toMatch(/^Pendiente: se suma a tu saldo el \d{1,2} de \w+ de \d{4}/);

    // The same figures accounts gives the store system that posted it.
    const forStore = await memberMovementDetail(miclub, ANA.user, posted.movement_id);
    expect(forStore.purchase.rules_version).toBe(posted.rules_version);
    expect(forStore.purchase.lines.map((line) => line.earned)).toEqual(earned);

    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'detalle-movimiento');

    // A reload keeps the explanation (its own address); Volver returns to the list.
    await page.reload();
    await table.waitFor();
    await page.getByRole('link', { name: 'Volver a Mis Movimientos' }).click();
    await page.waitForURL((url) => url.pathname === '/mi-club/movimientos');
  });

  it('answers an id that is not the member’s with a Spanish not-found, and another member with a 404', async () => {
    await page.goto(`${miclub.baseUrl}/mi-club/movimientos/no-existe-123`);
    await page.getByText('No encontramos este movimiento entre los tuyos.', { exact: false }).waitFor();

    const bruno = await browser.newContext(DESKTOP);
    try {
      const brunoPage = await bruno.newPage();
      await logIn(brunoPage, miclub.baseUrl, { typed: BRUNO.typed, password: BRUNO.password, email: BRUNO_EMAIL });
      const theirs = await brunoPage.request.get(`${miclub.baseUrl}/api/movements/${posted.movement_id}`);
      const unknown = await brunoPage.request.get(`${miclub.baseUrl}/api/movements/no-existe-123`);
      expect(theirs.status()).toBe(404);
      expect(await theirs.json()).toEqual(await unknown.json());
      const malformed = await brunoPage.request.get(`${miclub.baseUrl}/api/movements/${encodeURIComponent('../balance')}`);
      expect(malformed.status()).toBe(400);
      expect((await malformed.json()).field).toBe('movementId');
    } finally {
      await bruno.close();
    }
  });
});
