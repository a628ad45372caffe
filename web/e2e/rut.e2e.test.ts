/**
 * The RUT as members type it, against the real binary: Ana logs in typing her RUT bare
 * (`111111111`), with dots and hyphen (`11.111.111-1`) and zero-padded (`011.111.111-1`), and the
 * field shows `11.111.111-1` each time; a malformed RUT answers `ERR_INVALID_RUT` on every
 * public route a RUT enters by (the logged-in unsubscribe routes are covered by the gateway's
 * API tests).
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DESKTOP, launchBrowser } from './support/browser';
import { ANA, ANA_EMAIL } from './support/member';
import { readMailbox, startMiclub, waitForNewCode, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';


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

describe(`RUT input against ${PORTAL_UNDER_TEST}`, () => {
  for (const typed of ['111111111', '11.111.111-1', '011.111.111-1']) {
    it(`logs Ana in with her RUT typed as ${typed}`, async () => {
      const context = await browser.newContext(DESKTOP);
      try {
        const page = await context.newPage();
        await page.goto(`${miclub.baseUrl}/login`);
        const user = page.getByLabel('RUT', { exact: true });
        await user.pressSequentially(typed);
        expect(await user.inputValue()).toBe(ANA.user);
        await page.getByLabel('Contraseña', { exact: true }).fill(ANA.password);
        const before = await readMailbox(miclub.baseUrl);
        const sent = page.waitForRequest((r) => new URL(r.url()).pathname === '/api/login');
        await page.getByRole('button', { name: 'Ingresar' }).click();
        expect((await sent).postDataJSON()).toMatchObject({ user: ANA.user });
        const codeField = page.getByLabel('Código de verificación');
        await codeField.waitFor();
        await codeField.fill(await waitForNewCode(miclub.baseUrl, ANA_EMAIL, before));
        await page.getByRole('button', { name: 'Validar código' }).click();
        await page.waitForURL('**/mi-club');
        await page.getByRole('heading', { name: `Hola, ${ANA.name}` }).first().waitFor();
      } finally {
        await context.close();
      }
    });
  }

  it('answers ERR_INVALID_RUT for a malformed RUT on every public route a RUT enters by', async () => {
    const context = await browser.newContext(DESKTOP);
    try {
      const request = context.request;
      for (const rut of ['11.111.111-2', '0-0', '123.456.789-0']) {
        const routes: [string, Record<string, unknown>, string][] = [
          ['/api/login', { user: rut, password: ANA.password }, 'user'],
          ['/api/password-recovery', { user: rut }, 'user'],
          ['/api/registration', { documentType: 'RUT', rut, documentNumber: '100.123.456' }, 'rut'],
          ['/api/registration/verification-email', { user: rut }, 'user'],
        ];
        for (const [path, data, field] of routes) {
          const answer = await request.post(`${miclub.baseUrl}${path}`, {
            data,
            headers: { 'x-miclub-csrf': '1', 'recaptcha-token': 'local:login' },
          });
          expect([path, rut, answer.status()]).toEqual([path, rut, 400]);
          expect(await answer.json()).toMatchObject({ code: 'ERR_INVALID_RUT', field, message: 'El RUT ingresado no es válido.' });
        }
      }
    } finally {
      await context.close();
    }
  });
});
