/**
 * The email links against the real binary (issue #19, item 7), with Carla, whose email is not
 * verified: her login's ERR_EMAIL_NOT_VERIFIED action leads to the resend page with her RUT
 * prefilled; the link mailed from there confirms her email, and opening the same link a second
 * time says the email is already confirmed and offers to log in, while a forged token stays
 * invalid. Carla's email ends confirmed, so the steps run in order in one file.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DESKTOP, launchBrowser } from './support/browser';
import { readMailbox, startMiclub, waitForMail, type Miclub } from './support/miclub';

const CARLA = { user: '33.333.333-3', typed: '333333333', password: 'MiClub2026!' };
const CARLA_EMAIL = process.env.MICLUB_E2E_CARLA_EMAIL ?? 'carla@example.cl';

let miclub: Miclub;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let link = '';

beforeAll(async () => {
  miclub = await startMiclub();
  browser = await launchBrowser();
  context = await browser.newContext(DESKTOP);
  page = await context.newPage();
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await miclub?.stop();
});

describe('email links', () => {
  it("takes Carla from the login's action to the resend page with her RUT prefilled", async () => {
    await page.goto(`${miclub.baseUrl}/login`);
    await page.getByLabel('RUT', { exact: true }).pressSequentially(CARLA.typed);
    await page.getByLabel('Contraseña', { exact: true }).fill(CARLA.password);
    await page.getByRole('button', { name: 'Ingresar' }).click();
    const action = page.getByRole('alert').getByRole('link', { name: 'Reenviar correo de verificación' });
    await action.click();
    await page.waitForURL('**/registro/verificar-correo?rut=33.333.333-3');
    await expect.poll(() => page.getByLabel('RUT', { exact: true }).inputValue()).toBe(CARLA.user);

    const before = await readMailbox(miclub.baseUrl);
    await page.getByRole('button', { name: 'Reenviar correo' }).click();
    await page.getByText('Si tu cuenta está pendiente de verificación, te enviamos un nuevo correo.').waitFor();
    const mail = await waitForMail(
      miclub.baseUrl,
      (entry) => entry.to === CARLA_EMAIL && entry.body.includes('/confirmar-correo?token='),
      before,
    );
    link = /https?:\/\/\S+\/confirmar-correo\?token=[A-Za-z0-9_-]+/.exec(mail.body)?.[0] ?? '';
    expect(link).not.toBe('');
  });

  it('confirms the email on the first open of the link', async () => {
    const path = new URL(link);
    await page.goto(`${miclub.baseUrl}${path.pathname}${path.search}`);
    await page.getByText('¡Listo! Confirmamos tu correo').waitFor();
  });

  it('says the email is already confirmed on a second open and offers to log in', async () => {
    const path = new URL(link);
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/profile/email/confirm');
    await page.goto(`${miclub.baseUrl}${path.pathname}${path.search}`);
    expect((await answer).status()).toBe(200);
    await page.getByText('Tu correo ya está confirmado.').waitFor();
    expect(await page.getByText('no es válido').count()).toBe(0);
    await page.getByRole('link', { name: 'Iniciar sesión' }).first().click();
    await page.waitForURL('**/login');
  });

  it('keeps a forged or altered token invalid', async () => {
    const token = new URL(link).searchParams.get('token') ?? '';
    const altered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const forged of [altered, 'x'.repeat(43)]) {
      const answer = await context.request.post(`${miclub.baseUrl}/api/profile/email/confirm`, {
        headers: { 'x-miclub-csrf': '1' },
        data: { token: forged },
      });
      expect(answer.status()).toBe(404);
      expect((await answer.json()).code).toBe('ERR_CONFIRMATION_INVALID');
    }
  });
});
