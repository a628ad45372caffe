/**
 * The login on its less travelled paths, against the real portal (issue #18: behaviours that
 * were tested only against the mock): a resent code arrives and is accepted, a gateway 500 shows
 * the spec's generic text, and the login-maintenance flag replaces the form, on /login and on
 * a page left open. The resend cooldown is 5 s for this file (auth's
 * `APP_AUTH__POLICY__RESEND_COOLDOWN_SECS`, 60 s in production), so the test waits it out for
 * real; the 500 comes from auth's own database losing its credentials table (./support/faults).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DESKTOP, launchBrowser } from './support/browser';
import { waitForContextFlag } from './support/context';
import { hideTable } from './support/faults';
import { setFlag } from './support/grpc';
import { ANA, ANA_EMAIL, dataLayer } from './support/member';
import { readMailbox, startMiclub, waitForNewCode, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

/** Spec section 8: a login or code failure with a 500 or without an answer. */
const LOGIN_GENERIC_ERROR = 'Lo sentimos! No hemos podido iniciar sesión.';
const LOGIN_MAINTENANCE = 'Inicio de sesión en mantención';

let miclub: Miclub;
let browser: Browser;

beforeAll(async () => {
  miclub = await startMiclub({ APP_AUTH__POLICY__RESEND_COOLDOWN_SECS: '5' });
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

async function fillCredentials(page: Page) {
  await page.goto(`${miclub.baseUrl}/login`);
  await page.getByLabel('RUT', { exact: true }).pressSequentially(ANA.typed);
  await page.getByLabel('Contraseña', { exact: true }).fill(ANA.password);
}

function loginAnswer(page: Page) {
  return page.waitForResponse((r) => new URL(r.url()).pathname === '/api/login' && r.request().method() === 'POST');
}

describe(`the login's less travelled paths against ${PORTAL_UNDER_TEST}`, () => {
  it('resends the code once the cooldown is over, says so, and the new code logs Ana in', async () => {
    const { context, page } = await newPage();
    try {
      await fillCredentials(page);
      const before = await readMailbox(miclub.baseUrl);
      const answered = loginAnswer(page);
      await page.getByRole('button', { name: 'Ingresar' }).click();
      const challenge = (await (await answered).json()) as { destination: string; resendAfterSeconds: number };
      expect(challenge.resendAfterSeconds).toBe(5);
      await page.getByLabel('Código de verificación').waitFor();
      // Disabled while the cooldown runs, enabled once it is over.
      expect(await page.getByRole('button', { name: 'Reenviar código' }).isDisabled()).toBe(true);
      await page.getByText(/^Podrás pedir un nuevo código en \d segundos\.$/).waitFor();
      await waitForNewCode(miclub.baseUrl, ANA_EMAIL, before);

      const resend = page.getByRole('button', { name: 'Reenviar código', disabled: false });
      await resend.waitFor({ timeout: 15_000 });
      const beforeResend = await readMailbox(miclub.baseUrl);
      const resent = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/resend-otp');
      await resend.click();
      expect((await resent).status()).toBe(200);
      const notice = page.getByRole('status').filter({ hasText: 'Te enviamos un nuevo código' });
      await notice.waitFor();
      expect((await notice.textContent())?.trim()).toBe(`Te enviamos un nuevo código a ${challenge.destination}.`);

      const code = await waitForNewCode(miclub.baseUrl, ANA_EMAIL, beforeResend);
      await page.getByLabel('Código de verificación').fill(code);
      await page.getByRole('button', { name: 'Validar código' }).click();
      await page.waitForURL('**/mi-club');
      await page.getByRole('heading', { level: 1, name: `Hola, ${ANA.name}` }).waitFor();
      expect(await dataLayer(page)).toContainEqual(expect.objectContaining({ event: 'login_exitoso' }));
    } finally {
      await context.close();
    }
  });

  it("shows the spec's generic text, and pushes login_fallido, when the gateway answers 500", async () => {
    const { context, page } = await newPage();
    const restore = await hideTable(miclub, 'auth', 'credentials');
    try {
      await fillCredentials(page);
      const answered = loginAnswer(page);
      await page.getByRole('button', { name: 'Ingresar' }).click();
      const answer = await answered;
      expect(answer.status()).toBe(500);
      expect(((await answer.json()) as { code: string }).code).toBe('ERR_INTERNAL');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect((await alert.textContent())?.trim()).toBe(LOGIN_GENERIC_ERROR);
      expect(await dataLayer(page)).toContainEqual(
        expect.objectContaining({ event: 'login_fallido', paso: 'contrasena', codigo_error: 'ERR_INTERNAL' }),
      );
      // The form stays, so the member can try again.
      expect(await page.getByLabel('RUT', { exact: true }).inputValue()).toBe(ANA.user);
    } finally {
      await restore();
      await context.close();
    }
  });

  it('shows the login-maintenance message instead of the form, on /login and on a page left open', async () => {
    const { context, page } = await newPage();
    try {
      // A page left open on /login: the next context poll (clock fast-forwarded) closes the form.
      await page.clock.install();
      await page.goto(`${miclub.baseUrl}/login`);
      await page.getByLabel('RUT', { exact: true }).waitFor();
      await setFlag(miclub, 'FLAG_NAME_IS_LOGIN_MAINTENANCE', true);
      await waitForContextFlag(miclub.baseUrl, 'isLoginMaintenance', true);
      await page.clock.fastForward('01:05');
      await page.getByRole('heading', { name: LOGIN_MAINTENANCE }).waitFor({ timeout: 15_000 });
      expect(await page.getByLabel('RUT', { exact: true }).count()).toBe(0);
      expect(await page.getByLabel('Contraseña', { exact: true }).count()).toBe(0);

      // On load too, and in the header's login modal; the rest of the portal stays open.
      await page.goto(`${miclub.baseUrl}/login`);
      await page.getByRole('heading', { name: LOGIN_MAINTENANCE }).waitFor();
      expect(await page.getByLabel('RUT', { exact: true }).count()).toBe(0);
      await page.goto(`${miclub.baseUrl}/promociones`);
      await page.getByRole('heading', { level: 1, name: 'Promociones' }).waitFor();
      await page.getByRole('banner').getByRole('button', { name: 'Iniciar sesión' }).click();
      const dialog = page.getByRole('dialog', { name: 'Inicia sesión' });
      await dialog.getByRole('heading', { name: LOGIN_MAINTENANCE }).waitFor();
      expect(await dialog.getByLabel('RUT', { exact: true }).count()).toBe(0);
      await page.keyboard.press('Escape');

      // And the form comes back at the next poll once ops turn the flag off.
      await page.goto(`${miclub.baseUrl}/login`);
      await page.getByRole('heading', { name: LOGIN_MAINTENANCE }).waitFor();
      await setFlag(miclub, 'FLAG_NAME_IS_LOGIN_MAINTENANCE', false);
      await waitForContextFlag(miclub.baseUrl, 'isLoginMaintenance', false);
      await page.clock.fastForward('01:05');
      await page.getByLabel('RUT', { exact: true }).waitFor({ timeout: 15_000 });
    } finally {
      await setFlag(miclub, 'FLAG_NAME_IS_LOGIN_MAINTENANCE', false);
      await context.close();
    }
  }, 120_000);
});
