/**
 * /recuperar-contrasena against the standalone binary: Diego recovers his password with the
 * code from the dev mailbox and logs in with the new one; the old one no longer works; step 1
 * answers the same for a RUT that belongs to nobody; a wrong code lands under its field.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import { dataLayer, screenshots } from './support/member';
import { readMailbox, recaptchaToken, startMiclub, waitForNewCode, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

const DIEGO = { user: '44.444.444-4', typed: '444444444', password: 'MiClub2026!', name: 'Diego' };
const DIEGO_EMAIL = process.env.MICLUB_E2E_DIEGO_EMAIL ?? 'diego@example.cl';
const NEW_PASSWORD = 'mi nueva clave de recuperación';
const DONE = 'Tu contraseña fue cambiada. Inicia sesión con tu nueva contraseña.';

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

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(DESKTOP);
  return { context, page: await context.newPage() };
}

/** Step 1 for `typed`; the gateway's answer once step 2 is shown. */
async function requestCode(page: Page, typed: string): Promise<{ status: number; message: string }> {
  await page.getByLabel('RUT', { exact: true }).pressSequentially(typed);
  const answer = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/password-recovery' && r.request().method() === 'POST',
  );
  await page.getByRole('button', { name: 'Enviar código' }).click();
  const response = await answer;
  const body = (await response.json()) as { message: string };
  await page.getByRole('heading', { level: 2, name: 'Paso 2 de 2: código y nueva contraseña' }).waitFor();
  return { status: response.status(), message: body.message };
}

function apiLogin(context: BrowserContext, password: string) {
  return context.request.post(`${miclub.baseUrl}/api/login`, {
    headers: { 'x-miclub-csrf': '1', 'recaptcha-token': recaptchaToken('login') },
    data: { user: DIEGO.user, password },
  });
}

describe(`password recovery against ${PORTAL_UNDER_TEST}`, () => {
  it('answers step 1 the same for a RUT that belongs to nobody, and puts a wrong code under its field', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/recuperar-contrasena`);
      await page.getByRole('heading', { level: 1, name: 'Recupera tu contraseña' }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshots(page, 'recuperar-contrasena-paso-1');

      // 12.345.678-5 is a valid RUT of no demo member.
      const nobody = await requestCode(page, '123456785');
      expect(nobody.status).toBe(200);
      expect(await page.getByRole('status').first().textContent()).toContain(nobody.message);

      const code = page.getByLabel('Código de verificación', { exact: true });
      await code.fill('000000');
      await page.getByLabel('Nueva contraseña', { exact: true }).fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
      await page.getByText('El código ingresado no es correcto.').waitFor();
      expect(await code.getAttribute('aria-invalid')).toBe('true');
      expect(await seriousViolations(page)).toEqual([]);
      await screenshots(page, 'recuperar-contrasena-paso-2');

      // Diego's answer is word for word the same.
      await page.getByRole('button', { name: 'Volver' }).click();
      await page.getByLabel('RUT', { exact: true }).fill('');
      const diego = await requestCode(page, DIEGO.typed);
      expect(diego).toEqual(nobody);
    } finally {
      await context.close();
    }
  });

  it('lets Diego recover his password with the mailed code and log in with the new one', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/login`);
      await page.getByRole('link', { name: '¿Olvidaste tu contraseña?' }).click();
      await page.waitForURL('**/recuperar-contrasena');
      await page.getByRole('heading', { level: 1, name: 'Recupera tu contraseña' }).waitFor();

      const before = await readMailbox(miclub.baseUrl);
      await requestCode(page, DIEGO.typed);
      expect(
        await page.evaluate(() => document.activeElement?.textContent),
      ).toBe('Paso 2 de 2: código y nueva contraseña');
      const code = await waitForNewCode(miclub.baseUrl, DIEGO_EMAIL, before);
      expect(code).toMatch(/^\d{6}$/);

      await page.getByLabel('Código de verificación', { exact: true }).fill(code);
      await page.getByLabel('Nueva contraseña', { exact: true }).fill(NEW_PASSWORD);
      const reset = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/password-recovery/reset');
      await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
      expect((await reset).status()).toBe(204);
      await page.getByText(DONE).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshots(page, 'recuperar-contrasena-exitoso');

      const events = (await dataLayer(page)).map((entry) => entry.event);
      expect(events).toEqual(
        expect.arrayContaining([
          'recuperar_contrasena_paso_1',
          'recuperar_contrasena_paso_2',
          'recuperar_contrasena_exitoso',
        ]),
      );

      expect((await apiLogin(context, DIEGO.password)).status()).toBe(401);

      await page.getByRole('link', { name: 'Iniciar sesión', exact: true }).click();
      await page.waitForURL('**/login');
      await page.getByLabel('RUT', { exact: true }).pressSequentially(DIEGO.typed);
      await page.getByLabel('Contraseña', { exact: true }).fill(NEW_PASSWORD);
      const beforeLogin = await readMailbox(miclub.baseUrl);
      await page.getByRole('button', { name: 'Ingresar' }).click();
      const codeField = page.getByLabel('Código de verificación');
      await codeField.waitFor();
      await codeField.fill(await waitForNewCode(miclub.baseUrl, DIEGO_EMAIL, beforeLogin));
      await page.getByRole('button', { name: 'Validar código' }).click();

      // Diego may still be shown the migrated-member welcome before his account.
      const welcome = page.getByRole('button', { name: 'Continuar' });
      await Promise.race([page.waitForURL('**/mi-club'), welcome.waitFor()]);
      if (await welcome.isVisible()) await welcome.click();
      await page.waitForURL('**/mi-club');
      await page.getByRole('heading', { level: 1, name: `Hola, ${DIEGO.name}` }).waitFor();
    } finally {
      await context.close();
    }
  });
});
