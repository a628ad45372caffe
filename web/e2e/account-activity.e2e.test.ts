/**
 * Actividad de la cuenta (issue #21) against the real binary, with Ana on two devices: a desktop
 * Chromium and a second browser context that says it is Safari on an iPhone. A wrong password
 * first shows in her security events; the desktop sees both sessions (its own marked "Esta
 * sesión"), closes the phone's, and the phone's next request is refused (401) at once, ending on
 * the expired-session notice.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import { accountMenu, ANA, ANA_EMAIL, apiResponse, logIn, openSection, screenshots } from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

const EXPIRED = 'Tu sesión expiró. Vuelve a iniciar sesión.';
const IPHONE_SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

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
    await openSection(desktop, 'Mis Datos');
    await desktop.getByRole('link', { name: 'Ver la actividad de la cuenta' }).click();
    await desktop.waitForURL((url) => url.pathname === '/mi-club/mis-datos/actividad');
    await desktop.getByRole('heading', { level: 2, name: 'Actividad de la cuenta' }).waitFor();
    const sessions = desktop.getByRole('list', { name: 'Sesiones abiertas' }).getByTestId('open-session');
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
    const refused = apiResponse(phone, '/api/movements', 'GET');
    await accountMenu(phone, 'Mis Movimientos').click();
    expect((await refused).status()).toBe(401);
    await phone.waitForURL('**/login**');
    const notice = phone.getByRole('status').filter({ hasText: EXPIRED });
    await notice.waitFor();
    expect((await notice.textContent())?.trim()).toBe(EXPIRED);

    // The desktop stays in.
    await accountMenu(desktop, 'Mis Movimientos').click();
    await desktop.getByRole('heading', { level: 2, name: 'Mis Movimientos' }).waitFor();
    expect(new URL(desktop.url()).pathname).toBe('/mi-club/movimientos');
  });
});
