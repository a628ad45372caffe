/**
 * The unsubscribe against the standalone binary, with Bruno (a demo member no other e2e file
 * uses; each file has its own instance anyway): both steps from Mis Datos, the confirmation
 * modal, the farewell on /login after the app resets to logged out (without POST /api/logout),
 * and a login that then fails with the unsubscribed message and its link to register.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import { apiResponse, BRUNO, BRUNO_EMAIL, dataLayer, logIn, openSection, screenshots } from './support/member';
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

type Reason = { id: number; label: string; requiresText: boolean };

describe(`unsubscribe against ${PORTAL_UNDER_TEST}`, () => {
  it('lets Bruno unsubscribe through both steps and the modal, after which login refuses him', async () => {
    const logoutCalls: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/logout') logoutCalls.push(request.method());
    });

    await page.getByRole('heading', { level: 1, name: `Hola, ${BRUNO.name}` }).waitFor();
    await openSection(page, 'Mis Datos');
    await page.getByRole('button', { name: 'Darme de baja de Mi Club' }).click();
    await page.getByRole('heading', { level: 2, name: 'Darme de baja de Mi Club' }).waitFor();
    await page.getByRole('heading', { level: 3, name: 'Paso 1 de 2: confirma que eres tú' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'desuscripcion-paso-1');

    // Someone else's email: the validation failure, and the member stays at step 1.
    await page.getByLabel('RUT', { exact: true }).pressSequentially(BRUNO.typed);
    await page.getByLabel('Correo electrónico', { exact: true }).fill('otra.persona@example.cl');
    // Step-up: the document and email are shown to whoever holds the session; the password is not.
    await page.getByLabel('Contraseña actual', { exact: true }).fill(BRUNO.password);
    const mismatch = apiResponse(page, '/api/unsubscribe/validate');
    await page.getByRole('button', { name: 'Continuar' }).click();
    expect((await mismatch).status()).toBe(422);
    await page.getByText('Los datos ingresados no coinciden con los de tu cuenta.').waitFor();

    await page.getByLabel('Correo electrónico', { exact: true }).fill(BRUNO_EMAIL);
    const validated = apiResponse(page, '/api/unsubscribe/validate');
    await page.getByRole('button', { name: 'Continuar' }).click();
    expect(await (await validated).json()).toEqual({ alreadyUnsubscribed: false });
    await page.getByRole('heading', { level: 3, name: 'Paso 2 de 2: cuéntanos por qué te vas' }).waitFor();

    // The reason that asks for a text, as the gateway lists it.
    const answer = await context.request.get(`${miclub.baseUrl}/api/unsubscribe/reasons`);
    expect(answer.status()).toBe(200);
    const { reasons } = (await answer.json()) as { reasons: Reason[] };
    const withText = reasons.find((reason) => reason.requiresText) ?? reasons[0];
    if (!withText) throw new Error('the gateway listed no reasons');
    await page.getByRole('radio', { name: withText.label, exact: true }).check();
    if (withText.requiresText) {
      await page.getByLabel('Cuéntanos el motivo', { exact: true }).fill('Me cambio de ciudad.');
    }
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'desuscripcion-paso-2');

    await page.getByRole('button', { name: 'Continuar' }).click();
    const dialog = page.getByRole('dialog', { name: '¿Seguro que quieres darte de baja de Mi Club?' });
    await dialog.waitFor();
    expect(await dialog.getByRole('button', { name: 'Cancelar' }).evaluate((el) => el === document.activeElement)).toBe(
      true,
    );
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'desuscripcion-modal');

    const confirmed = apiResponse(page, '/api/unsubscribe');
    await dialog.getByRole('button', { name: 'Sí, darme de baja' }).click();
    const confirmation = await confirmed;
    expect(confirmation.status()).toBe(200);
    const { unsubscribedAt } = (await confirmation.json()) as { unsubscribedAt: string };
    expect(Number.isNaN(new Date(unsubscribedAt).getTime())).toBe(false);

    await page.waitForURL('**/login');
    const farewell = page.getByRole('status').filter({ hasText: 'Te diste de baja de Mi Club el' });
    await farewell.waitFor();
    const day = new Intl.DateTimeFormat('es-CL', {
      timeZone: 'America/Santiago',
      day: 'numeric',
      month: 'long',
      year: 'numeric',
    }).format(new Date(unsubscribedAt));
    expect(await farewell.textContent()).toContain(`Te diste de baja de Mi Club el ${day}.`);
    await screenshots(page, 'desuscripcion-confirmada');
    expect(logoutCalls).toEqual([]);
    expect(await page.evaluate(() => window.localStorage.getItem('miclub:session'))).toBeNull();

    const events = (await dataLayer(page)).map((entry) => entry.event);
    expect(events).toEqual(
      expect.arrayContaining([
        'desuscripción_fallida',
        'desuscripción_paso_1',
        'desuscripción_paso_2',
        'desuscripción_confirmada',
      ]),
    );

    // Mi Club is no longer reachable with the old session.
    const profile = await context.request.get(`${miclub.baseUrl}/api/profile`);
    expect(profile.status()).toBe(401);

    // Login with the right password now says he left, with the link to register again.
    await page.getByLabel('RUT', { exact: true }).pressSequentially(BRUNO.typed);
    await page.getByLabel('Contraseña', { exact: true }).fill(BRUNO.password);
    const login = apiResponse(page, '/api/login');
    await page.getByRole('button', { name: 'Ingresar' }).click();
    const refused = await login;
    expect(refused.status()).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('ERR_MEMBER_UNSUBSCRIBED');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Te diste de baja de Mi Club');
    expect(await alert.getByRole('link', { name: 'Registrarme' }).getAttribute('href')).toBe('/registro');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
