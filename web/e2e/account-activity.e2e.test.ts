/**
 * Actividad de la cuenta (issue #21) against the real binary, with Ana on two devices: a desktop
 * Chromium and a second browser context that says it is Safari on an iPhone. A wrong password
 * first shows in her security events; the desktop sees both sessions (its own marked "Esta
 * sesión"), closes the phone's, and the phone's next request is refused (401) at once, ending on
 * the expired-session notice. Then Bruno on three devices: "Cerrar las demás sesiones" from one
 * refuses the other two at once, logged out, while the one that closed them stays in.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import {
  accountMenu,
  ANA,
  ANA_EMAIL,
  apiResponse,
  BRUNO,
  BRUNO_EMAIL,
  logIn,
  openAccountActivity,
  openSessions,
  refusedAndSentToLogin,
  screenshots,
} from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';
const WINDOWS_FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0';

let miclub: Miclub;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  miclub = await startMiclub({ APP_AUTH__POLICY__DAILY_SEND_CAP: '30' });
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await miclub?.stop();
});

async function newPage(options: Parameters<Browser['newContext']>[0] = DESKTOP): Promise<Page> {
  const context = await browser.newContext(options);
  contexts.push(context);
  return context.newPage();
}

async function anaLoggedIn(page: Page) {
  await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL });
  await page.getByRole('heading', { level: 1, name: `Hola, ${ANA.name}` }).waitFor();
}

async function brunoLoggedIn(page: Page) {
  await logIn(page, miclub.baseUrl, { typed: BRUNO.typed, password: BRUNO.password, email: BRUNO_EMAIL });
  await page.getByRole('heading', { level: 1, name: `Hola, ${BRUNO.name}` }).waitFor();
}

/** A session the gateway closed: its next request is refused (401) and it ends logged out on /login. */
async function refusedAtOnce(page: Page) {
  await refusedAndSentToLogin(page);
  // Logged out: the account's address asks for a login again.
  await page.goto(`${miclub.baseUrl}/mi-club`);
  await page.waitForURL((url) => url.pathname === '/login');
  await page.getByRole('heading', { level: 1, name: 'Inicia sesión' }).waitFor();
}

describe(`Actividad de la cuenta in the browser, against ${PORTAL_UNDER_TEST}`, () => {
  it('shows both of her sessions and a failed login, closes the other one, and that one is refused at once', async () => {
    const desktop = await newPage();
    // A wrong password first: it is one of her security events.
    await desktop.goto(`${miclub.baseUrl}/login`);
    await desktop.getByLabel('RUT', { exact: true }).pressSequentially(ANA.typed);
    await desktop.getByLabel('Contraseña', { exact: true }).fill('no-es-mi-clave');
    const refusedLogin = apiResponse(desktop, '/api/login');
    await desktop.getByRole('button', { name: 'Ingresar' }).click();
    expect((await refusedLogin).status()).toBe(401);
    await anaLoggedIn(desktop);

    const phone = await newPage({ ...DESKTOP, userAgent: IPHONE_SAFARI });
    await anaLoggedIn(phone);

    // From Mis Datos to Actividad de la cuenta, which has its own address.
    await openAccountActivity(desktop);
    const sessions = openSessions(desktop);
    await sessions.nth(1).waitFor();
    expect(await sessions.count()).toBe(2);
    const mine = sessions.filter({ hasText: 'Esta sesión' });
    expect(await mine.count()).toBe(1);
    expect(await mine.textContent()).toContain('Chrome en Linux');
    const theirs = sessions.filter({ hasText: 'Safari en iOS' });
    expect(await theirs.count()).toBe(1);

    const events = desktop.getByRole('list', { name: 'Eventos de seguridad' }).getByTestId('security-event');
    await events.first().waitFor();
    const labels = await events.allTextContents();
    expect(labels.some((label) => label.includes('Intento de inicio de sesión fallido: contraseña incorrecta'))).toBe(true);
    expect(labels.filter((label) => label.startsWith('Inicio de sesión')).length).toBeGreaterThanOrEqual(2);
    expect(await seriousViolations(desktop)).toEqual([]);
    await screenshots(desktop, 'actividad-de-la-cuenta');

    // Close the phone's session from the desktop.
    const closing = desktop.waitForResponse(
      (r) => new URL(r.url()).pathname.startsWith('/api/security/sessions/') && r.request().method() === 'DELETE',
    );
    await theirs.getByRole('button', { name: /^Cerrar la sesión de Safari en iOS/ }).click();
    expect((await closing).status()).toBe(204);
    await desktop.getByRole('status').filter({ hasText: 'Cerramos la sesión.' }).waitFor();
    await desktop.getByText('No tienes otras sesiones abiertas.').waitFor();
    expect(await sessions.count()).toBe(1);

    // The phone's very next request is refused, and it ends on the expired-session notice.
    await refusedAtOnce(phone);

    // The desktop stays in.
    await accountMenu(desktop, 'Mis Movimientos').click();
    await desktop.getByRole('heading', { level: 2, name: 'Mis Movimientos' }).waitFor();
    expect(new URL(desktop.url()).pathname).toBe('/mi-club/movimientos');
  });

  it('closes every other session at once from one of three, which alone stays in', async () => {
    // Bruno, so that Ana's sessions of the case above play no part.
    const laptop = await newPage();
    await brunoLoggedIn(laptop);
    const phone = await newPage({ ...DESKTOP, userAgent: IPHONE_SAFARI });
    await brunoLoggedIn(phone);
    const pc = await newPage({ ...DESKTOP, userAgent: WINDOWS_FIREFOX });
    await brunoLoggedIn(pc);

    await openAccountActivity(laptop);
    const sessions = openSessions(laptop);
    await sessions.nth(2).waitFor();
    expect(await sessions.count()).toBe(3);
    expect(await sessions.filter({ hasText: 'Esta sesión' }).textContent()).toContain('Chrome en Linux');

    const closing = apiResponse(laptop, '/api/security/sessions/close-others');
    await laptop.getByRole('button', { name: 'Cerrar las demás sesiones', exact: true }).click();
    expect((await closing).status()).toBe(200);
    await laptop.getByRole('status').filter({ hasText: 'Cerramos 2 sesiones.' }).waitFor();
    await laptop.getByText('No tienes otras sesiones abiertas.').waitFor();
    expect(await sessions.count()).toBe(1);
    expect(await sessions.first().textContent()).toContain('Esta sesión');
    await screenshots(laptop, 'actividad-de-la-cuenta-demas-cerradas');

    // Neither of the other two gets another answer: their next request is refused at once.
    await refusedAtOnce(phone);
    await refusedAtOnce(pc);

    // The one that closed them stays in.
    const stillIn = apiResponse(laptop, '/api/movements', 'GET');
    await accountMenu(laptop, 'Mis Movimientos').click();
    expect((await stillIn).status()).not.toBe(401);
    await laptop.getByRole('heading', { level: 2, name: 'Mis Movimientos' }).waitFor();
    expect(new URL(laptop.url()).pathname).toBe('/mi-club/movimientos');
    await laptop.reload();
    await laptop.getByRole('heading', { level: 2, name: 'Mis Movimientos' }).waitFor();
    expect(new URL(laptop.url()).pathname).toBe('/mi-club/movimientos');
  });
});
