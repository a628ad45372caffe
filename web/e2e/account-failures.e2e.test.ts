/**
 * Ana's account area when things are not as usual, against the real portal (issue #18:
 * behaviours that were tested only against the mock): the terms decision failing (accounts'
 * database refuses to record it, see ./support/faults), which shows the spec's text in the
 * section and in the rejection modal, and the back office switching content's
 * changePasswordEnable flag off, which takes the password change out of Mis Datos until it is
 * switched on again (seen at the next context poll, the browser's clock fast-forwarded).
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DESKTOP, launchBrowser } from './support/browser';
import { waitForContextFlag } from './support/context';
import { refuseUpdates } from './support/faults';
import { setFlag } from './support/grpc';
import { accountMenu, ANA, ANA_EMAIL, dataLayer, logIn, openSection } from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

/** Spec section 8: a terms update failure. */
const TERMS_FAILED = 'No pudimos actualizar tus términos y condiciones, intenta de nuevo más tarde.';

let miclub: Miclub;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  miclub = await startMiclub();
  browser = await launchBrowser();
  context = await browser.newContext(DESKTOP);
  page = await context.newPage();
  // Fake timers that run at normal speed, so a test can jump past the app's one-minute poll.
  await page.clock.install();
  await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await miclub?.stop();
});

const menu = (label: string) => accountMenu(page, label);

const open = (label: string) => openSection(page, label);

function termsDecision() {
  return page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/terms-and-conditions' && r.request().method() === 'POST',
  );
}

describe(`the account area on a bad day, against ${PORTAL_UNDER_TEST}`, () => {
  it("shows the spec's text when the terms decision cannot be recorded, in the section and in the modal", async () => {
    await open('Términos y Condiciones');
    await page.getByRole('button', { name: 'Aceptar', exact: true }).waitFor();
    const restore = await refuseUpdates(miclub, 'accounts', 'members', 'terms_decision');
    try {
      const accepted = termsDecision();
      await page.getByRole('button', { name: 'Aceptar', exact: true }).click();
      expect((await accepted).status()).toBe(500);
      const alert = page.getByRole('alert').filter({ hasText: TERMS_FAILED });
      await alert.waitFor();
      expect((await alert.textContent())?.trim()).toBe(TERMS_FAILED);
      // Still in the section, nothing recorded, no analytics event for a decision not taken.
      expect(await menu('Términos y Condiciones').getAttribute('aria-current')).toBe('page');
      expect((await dataLayer(page)).map((entry) => entry.event)).not.toContain('terminos_y_condiciones_aceptado');

      await page.getByRole('button', { name: 'Rechazar', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: '¿Quieres rechazar los términos y condiciones?' });
      await dialog.waitFor();
      const rejected = termsDecision();
      await dialog.getByRole('button', { name: 'Sí, rechazar' }).click();
      expect((await rejected).status()).toBe(500);
      const inModal = dialog.getByRole('alert');
      await inModal.waitFor();
      expect((await inModal.textContent())?.trim()).toBe(TERMS_FAILED);
      expect(await dialog.isVisible()).toBe(true);
      expect((await dataLayer(page)).map((entry) => entry.event)).not.toContain('terminos_y_condiciones_rechazado');
      await dialog.getByRole('button', { name: 'Volver' }).click();
      await dialog.waitFor({ state: 'detached' });
    } finally {
      await restore();
    }
    // Once the database records again, the same button works.
    const accepted = termsDecision();
    await page.getByRole('button', { name: 'Aceptar', exact: true }).click();
    expect((await accepted).status()).toBe(200);
    await page.getByText('Aceptaste los términos y condiciones.', { exact: true }).waitFor();
  });

  it('offers no password change in Mis Datos while changePasswordEnable is off, and offers it once it is on', async () => {
    try {
      await setFlag(miclub, 'FLAG_NAME_CHANGE_PASSWORD_ENABLE', false);
      await waitForContextFlag(miclub.baseUrl, 'changePasswordEnable', false);
      await page.reload();
      await page.getByRole('heading', { level: 1, name: `Hola, ${ANA.name}` }).waitFor();
      await open('Mis Datos');
      await page.getByLabel('Correo electrónico', { exact: true }).waitFor();
      expect(await page.getByRole('heading', { name: 'Cambiar contraseña' }).count()).toBe(0);
      expect(await page.getByLabel('Contraseña actual', { exact: true }).count()).toBe(0);
      expect(await page.getByLabel('Nueva contraseña', { exact: true }).count()).toBe(0);

      await setFlag(miclub, 'FLAG_NAME_CHANGE_PASSWORD_ENABLE', true);
      await waitForContextFlag(miclub.baseUrl, 'changePasswordEnable', true);
      await page.clock.fastForward('01:05');
      await page.getByRole('heading', { level: 3, name: 'Cambiar contraseña' }).waitFor({ timeout: 15_000 });
      await page.getByLabel('Nueva contraseña', { exact: true }).waitFor();
    } finally {
      await setFlag(miclub, 'FLAG_NAME_CHANGE_PASSWORD_ENABLE', true);
    }
  }, 90_000);
});
