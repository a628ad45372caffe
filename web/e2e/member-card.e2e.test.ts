/**
 * The member card at the till (#21) against the real binary. Ana opens Mi Tarjeta: her card number
 * and its barcode, which a store system's PostPurchase accepts in place of her RUT. Once opened,
 * the card opens again with the network cut, with her last balance stamped "Actualizado el …";
 * logout deletes the kept card, and so does the forced logout when her session is closed from
 * another device; when her session ends with no logout here, the next member to log in on this
 * browser (Bruno) never sees her card. A visitor who never logged in keeps nothing at all.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import { memberMovementDetail, postPurchase } from './support/grpc';
import {
  ANA,
  ANA_EMAIL,
  BRUNO,
  BRUNO_EMAIL,
  logIn,
  openAccountActivity,
  openSection,
  refusedAndSentToLogin,
  screenshots,
} from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

const PERSONAL_CACHE = 'miclub-personal-v1';

let miclub: Miclub;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let cardNumber = '';
let balanceShown = '';

/** The Cache Storage names the page's origin holds. */
function cacheNames(target: Page): Promise<string[]> {
  return target.evaluate(() => caches.keys());
}

/** Ana logs in on `page` and opens Mi Tarjeta, which keeps her card on this browser. */
async function anaOpensHerCard() {
  await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL });
  await openSection(page, 'Mi Tarjeta');
  await page.getByTestId('member-card').waitFor();
  await expect.poll(() => cacheNames(page)).toContain(PERSONAL_CACHE);
}

beforeAll(async () => {
  miclub = await startMiclub();
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

describe(`the member card against ${PORTAL_UNDER_TEST}`, () => {
  it('shows Ana her card number with its barcode and her balance', async () => {
    await openSection(page, 'Mi Tarjeta');
    const card = page.getByTestId('member-card');
    await card.waitFor();
    const shown = (await page.getByTestId('card-number').textContent()) ?? '';
    expect(shown).toMatch(/^\d{4} \d{4} \d{4}$/);
    cardNumber = shown.replace(/ /g, '');
    const barcode = page.getByRole('img', { name: `Código de barras de tu número de socio ${shown}` });
    expect(await barcode.getAttribute('data-value')).toBe(cardNumber);
    // Bars drawn, not an empty frame.
    expect(await barcode.locator('rect').count()).toBeGreaterThan(20);
    balanceShown = (await page.getByTestId('card-balance').textContent()) ?? '';
    expect(balanceShown).toMatch(/^\$[\d.]+$/);
    expect(await page.getByTestId('card-stamp').textContent()).toMatch(/^Actualizado el \d{1,2} de \w+ de \d{4}/);

    // Large type is a pressed toggle that stays pressed.
    const largeType = page.getByRole('button', { name: 'Letra grande' });
    await largeType.click();
    expect(await largeType.getAttribute('aria-pressed')).toBe('true');

    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'tarjeta');
  });

  it('is an installable app by Chromium’s own checks (manifest, icons, service worker)', async () => {
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const cdp = await context.newCDPSession(page);
    try {
      const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
      // Playwright's contexts are off the record, which alone keeps Chromium from offering it.
      expect(installabilityErrors.map((error) => error.errorId).filter((id) => id !== 'in-incognito')).toEqual([]);
      const { url, errors, data } = await cdp.send('Page.getAppManifest');
      expect(new URL(url).pathname).toBe('/manifest.webmanifest');
      expect(errors).toEqual([]);
      // The manifest names its own id, the one start_url gave the installs made before it.
      expect((JSON.parse(data ?? '{}') as { id?: string }).id).toBe('/mi-club');
      const { appId } = await cdp.send('Page.getAppId');
      expect(appId).toBe(`${miclub.baseUrl}/mi-club`);
    } finally {
      await cdp.detach();
    }
    // Safari's home-screen icon, which it takes from the page, not the manifest.
    const touchIcon = await page.locator('link[rel="apple-touch-icon"]').getAttribute('href');
    const icon = await page.request.get(new URL(touchIcon ?? '', miclub.baseUrl).href);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toBe('image/png');
  });

  it('is the number a store system scans: a purchase posted with it accrues to Ana', async () => {
    const posted = await postPurchase(miclub, {
      memberCard: cardNumber,
      paymentMethod: 'PAYMENT_METHOD_PARTNER_CARD',
      lines: [{ category: 'CATEGORY_MEAT', amount: 10_000, product_category_id: 10 }],
    });
    expect(posted.accrued).toBeGreaterThan(0);
    const detail = await memberMovementDetail(miclub, ANA.user, posted.movement_id);
    expect(detail.movement.movement_id).toBe(posted.movement_id);
  });

  it('opens again with the network cut, with the last balance and when it was read', async () => {
    // Opening the card installed the service worker; it controls the page once its files are kept.
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null)).toBe(true);
    expect(await cacheNames(page)).toContain(PERSONAL_CACHE);

    await context.setOffline(true);
    try {
      await page.reload();
      // At once: nothing waits for the network it does not have.
      await page.getByTestId('member-card').waitFor({ timeout: 5_000 });
      expect((await page.getByTestId('card-number').textContent())?.replace(/ /g, '')).toBe(cardNumber);
      expect(await page.getByTestId('card-balance').textContent()).toBe(balanceShown);
      expect(await page.getByTestId('card-stamp').textContent()).toMatch(/^Actualizado el \d{1,2} de \w+ de \d{4}/);
      await page.getByText('Estás sin conexión.', { exact: false }).waitFor();
      await screenshots(page, 'tarjeta-sin-conexion');
    } finally {
      await context.setOffline(false);
    }
  });

  it('deletes the kept card on logout', async () => {
    await page.reload();
    await page.getByTestId('member-card').waitFor();
    await page.getByRole('navigation', { name: 'Menú de mi cuenta' }).getByRole('button', { name: 'Cerrar sesión' }).click();
    await page.waitForURL('**/login');
    expect(await cacheNames(page)).not.toContain(PERSONAL_CACHE);
    // Logged out and offline, the card's address asks for a login, not a kept card.
    await context.setOffline(true);
    try {
      await page.goto(`${miclub.baseUrl}/mi-club/tarjeta`);
      await page.waitForURL((url) => url.pathname === '/login');
      expect(await page.getByTestId('member-card').count()).toBe(0);
    } finally {
      await context.setOffline(false);
    }
  });

  it('deletes the kept card when her session is closed from another device (the forced logout)', async () => {
    await anaOpensHerCard();
    // From her phone, "Cerrar las demás sesiones" closes this browser's session.
    const phone = await browser.newContext(DESKTOP);
    try {
      const phonePage = await phone.newPage();
      await logIn(phonePage, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL });
      await openAccountActivity(phonePage);
      await phonePage.getByRole('button', { name: 'Cerrar las demás sesiones', exact: true }).click();
      await phonePage.getByText('No tienes otras sesiones abiertas.').waitFor();
    } finally {
      await phone.close();
    }
    // This browser's next request is refused (401): the forced logout takes the card with it.
    await refusedAndSentToLogin(page);
    await expect.poll(() => cacheNames(page)).not.toContain(PERSONAL_CACHE);
  });

  it('never shows Ana’s kept card to the next member who logs in on this browser', async () => {
    await anaOpensHerCard();
    // Her session ends without a logout here (the browser dropped its cookies): her card stays.
    await context.clearCookies();
    await page.goto(`${miclub.baseUrl}/login?redirect=${encodeURIComponent('/mi-club/tarjeta')}`);
    await page.getByLabel('RUT', { exact: true }).waitFor();
    expect(await cacheNames(page)).toContain(PERSONAL_CACHE);
    // Every card number this page ever shows from now on, however briefly.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { cardsSeen: string[] }).cardsSeen = seen;
      new MutationObserver(() => {
        const number = document.querySelector('[data-testid="card-number"]')?.textContent;
        if (number && !seen.includes(number)) seen.push(number);
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });

    // Bruno logs in and is taken to Mi Tarjeta; he has no club account, so no card of his own.
    await logIn(
      page,
      miclub.baseUrl,
      { typed: BRUNO.typed, password: BRUNO.password, email: BRUNO_EMAIL },
      { navigate: false, landing: (url) => url.pathname === '/mi-club/tarjeta' },
    );
    await page.getByText('Aún no tienes tu cuenta Mi Club', { exact: false }).waitFor();
    expect(await page.getByTestId('member-card').count()).toBe(0);
    expect(await cacheNames(page)).not.toContain(PERSONAL_CACHE);
    expect(await page.evaluate(() => (window as unknown as { cardsSeen: string[] }).cardsSeen)).toEqual([]);
    expect(await page.content()).not.toContain(cardNumber);

    // Offline at the card's address, where a kept card is all there is to show: none.
    await context.setOffline(true);
    try {
      await page.reload();
      await page.getByText('Estás sin conexión y aún no has abierto tu tarjeta en este dispositivo.', { exact: false }).waitFor();
      expect(await page.getByTestId('member-card').count()).toBe(0);
    } finally {
      await context.setOffline(false);
    }
  });

  it('keeps nothing for a visitor who never logged in', async () => {
    const visitor = await browser.newContext(DESKTOP);
    try {
      const visitorPage = await visitor.newPage();
      for (const path of ['/login', '/promociones', '/mi-club/tarjeta']) {
        await visitorPage.goto(`${miclub.baseUrl}${path}`);
        await visitorPage.waitForLoadState('networkidle');
      }
      expect(await cacheNames(visitorPage)).toEqual([]);
      expect(await visitorPage.evaluate(() => navigator.serviceWorker.getRegistrations().then((all) => all.length))).toBe(0);
    } finally {
      await visitor.close();
    }
  });
});
