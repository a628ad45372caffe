/**
 * Joining in place against the real portal, with Bruno (the demo member with a login but no club
 * account; this file starts its own instance, so the unsubscribe file's Bruno is another one):
 * Mi Cuenta shows the join form with his data prefilled instead of a link to /registro, the terms
 * must be ticked, one click opens the account, the balance shows $0, the menu's sections answer as
 * for any member, and a reload finds the account (still $0, no form). A second POST is idempotent.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import { accountMenu, apiResponse, BRUNO, BRUNO_EMAIL, dataLayer, logIn, openSection, screenshots } from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

let miclub: Miclub;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  miclub = await startMiclub();
  browser = await launchBrowser();
  context = await browser.newContext(DESKTOP);
  page = await context.newPage();
  await logIn(page, miclub.baseUrl, { typed: BRUNO.typed, password: BRUNO.password, email: BRUNO_EMAIL });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await miclub?.stop();
});

/** The CSRF header every state-changing request carries (as the web app's client sends it). */
const CSRF = { 'x-miclub-csrf': '1' };

describe(`joining Mi Club from Mi Cuenta against ${PORTAL_UNDER_TEST}`, () => {
  it('lets Bruno join in place: data prefilled, terms required, $0 and the menu, and it survives a reload', async () => {
    await page.getByRole('heading', { level: 1, name: `Hola, ${BRUNO.name}` }).waitFor();
    const form = page.getByRole('form', { name: 'Únete a Mi Club' });
    await form.waitFor();
    // His data as the portal holds it, read-only; no link sends him to /registro any more.
    await expect.poll(() => form.getByLabel('Nombre', { exact: true }).inputValue()).toBe('Bruno Muñoz Rojas');
    expect(await form.getByLabel('RUT', { exact: true }).inputValue()).toBe('22.222.222-2');
    expect(await form.getByLabel('Correo electrónico', { exact: true }).inputValue()).toBe(BRUNO_EMAIL);
    expect(await form.getByLabel('Nombre', { exact: true }).getAttribute('readonly')).not.toBeNull();
    expect(await page.locator('a[href="/registro"]', { hasText: 'Únete a Mi Club' }).count()).toBe(0);
    expect(await form.getByRole('link', { name: 'Leer términos y condiciones' }).getAttribute('href')).toBe(
      '/terminos-y-condiciones',
    );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'union-club-formulario');

    // The terms first: nothing is sent without them.
    let posts = 0;
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/account' && request.method() === 'POST') posts += 1;
    });
    await form.getByRole('button', { name: 'Unirme a Mi Club' }).click();
    await form.getByText('Debes aceptar los términos y condiciones para unirte a Mi Club.').waitFor();
    expect(posts).toBe(0);

    await form.getByRole('checkbox', { name: 'Acepto los términos y condiciones de Mi Club' }).check();
    const joined = apiResponse(page, '/api/account');
    await form.getByRole('button', { name: 'Unirme a Mi Club' }).click();
    const answer = await joined;
    expect(answer.status()).toBe(201);
    expect(await answer.json()).toMatchObject({ balance: 0, opened: true, terms_agreement: { agreement: 'accepted' } });

    const amount = page.getByTestId('balance-amount');
    await amount.waitFor();
    expect(await amount.textContent()).toBe('$0');
    expect(await form.count()).toBe(0);
    expect(await page.getByText('Aún no tienes una cuenta Mi Club.').count()).toBe(0);
    const events = await dataLayer(page);
    expect(events.filter((e) => e.event === 'union_club_exitosa')).toEqual([{ event: 'union_club_exitosa', cuenta_nueva: true }]);
    expect(events.some((e) => e.event === 'terminos_y_condiciones_aceptado')).toBe(true);
    await screenshots(page, 'union-club-saldo');

    // The menu's sections answer as for any member: Mis Movimientos lists (none yet) instead of
    // the without-account text, and the terms read as accepted.
    for (const label of ['Mi Cuenta', 'Mis Datos', 'Mis Movimientos', 'Términos y Condiciones']) {
      expect(await accountMenu(page, label).isVisible()).toBe(true);
    }
    await openSection(page, 'Mis Movimientos');
    await page.getByLabel('Mes', { exact: true }).waitFor();
    expect(await page.getByText('Aún no tienes una cuenta Mi Club.').count()).toBe(0);
    await accountMenu(page, 'Mi Cuenta').click();
    await page.getByTestId('balance-amount').waitFor();

    // A reload: the account is the server's, not the page's.
    await page.reload();
    await page.getByTestId('balance-amount').waitFor();
    expect(await page.getByTestId('balance-amount').textContent()).toBe('$0');
    expect(await page.getByRole('form', { name: 'Únete a Mi Club' }).count()).toBe(0);
  });

  it('answers a repeated join (a retry, a second tab) with the same account and nothing opened', async () => {
    const again = await context.request.post(`${miclub.baseUrl}/api/account`, {
      headers: { ...CSRF, origin: miclub.baseUrl },
      data: { acceptTermsAndConditions: true },
    });
    expect(again.status()).toBe(200);
    expect(await again.json()).toMatchObject({ balance: 0, opened: false });
    const balance = await context.request.get(`${miclub.baseUrl}/api/balance`);
    expect(await balance.json()).toMatchObject({ balance: 0 });
    // Without the session, nobody joins: the member is the session's.
    const stranger = await browser.newContext(DESKTOP);
    const anonymous = await stranger.request.post(`${miclub.baseUrl}/api/account`, {
      headers: { ...CSRF, origin: miclub.baseUrl },
      data: { acceptTermsAndConditions: true },
    });
    expect(anonymous.status()).toBe(401);
    await stranger.close();
  });
});
