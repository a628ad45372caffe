import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { capitalizeFirst } from '../src/lib/errors';
import { formatPesos } from '../src/lib/format';

import { seriousViolations } from './support/a11y';
import { launchBrowser } from './support/browser';
import { ANA, ANA_EMAIL, screenshots } from './support/member';
import { credentialCookie, readMailbox, startMiclub, waitForNewCode, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST, RESULTS_DIR } from './support/paths';


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

async function newPage(width = 1280): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 900 }, locale: 'es-CL' });
  return { context, page: await context.newPage() };
}

async function fillCredentials(page: Page, password: string) {
  await page.goto(`${miclub.baseUrl}/login`);
  const user = page.getByLabel('RUT', { exact: true });
  await user.pressSequentially(ANA.typed);
  expect(await user.inputValue()).toBe(ANA.user);
  await page.getByLabel('Contraseña', { exact: true }).fill(password);
}

describe(`login against ${PORTAL_UNDER_TEST}`, () => {
  it('logs Ana in with the code from the dev mailbox, shows her balance, survives a reload and logs out', async () => {
    const { context, page } = await newPage();
    try {
      await fillCredentials(page, ANA.password);
      const before = await readMailbox(miclub.baseUrl);
      await page.getByRole('button', { name: 'Ingresar' }).click();
      const codeField = page.getByLabel('Código de verificación');
      await codeField.waitFor();
      const code = await waitForNewCode(miclub.baseUrl, ANA_EMAIL, before);
      await codeField.fill(code);
      await page.getByRole('button', { name: 'Validar código' }).click();

      await page.waitForURL('**/mi-club');
      await page.getByRole('heading', { name: `Hola, ${ANA.name}` }).waitFor();
      const amount = page.getByTestId('balance-amount');
      await amount.waitFor();
      const balance = (await (await context.request.get(`${miclub.baseUrl}/api/balance`)).json()) as { balance: number };
      expect(await amount.textContent()).toBe(formatPesos(balance.balance));
      expect(await amount.textContent()).toMatch(/^\$\d{1,3}(\.\d{3})*$/);

      // Cookies: the visitor id, the readable is-logged flag, and no token anywhere in storage.
      const cookies = await context.cookies();
      expect(cookies.find((c) => c.name === 'user_id')?.value).toMatch(/^[0-9a-f-]{36}$/);
      expect(cookies.find((c) => c.name === 'is-logged')?.value).toBe('true');
      const session = credentialCookie(cookies, 'mc_session');
      expect(session?.httpOnly).toBe(true);
      const stored = await page.evaluate(() =>
        JSON.stringify([{ ...window.localStorage }, { ...window.sessionStorage }]),
      );
      expect(stored).not.toContain(session?.value ?? 'no-session-cookie');
      expect(stored).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
      expect(stored).not.toContain(ANA.password);

      const dataLayer = await page.evaluate(() => (window as unknown as { dataLayer?: unknown[] }).dataLayer ?? []);
      expect(dataLayer).toContainEqual(expect.objectContaining({ event: 'login_exitoso' }));

      await screenshots(page, 'mi-club');
      expect(await seriousViolations(page)).toEqual([]);

      // The access cookie is minutes old: the reloaded page asks for the balance at once, with
      // no renewal round trip in front of it (session-fresh, docs/api.md).
      const asked: string[] = [];
      const record = (request: { url(): string }) => asked.push(new URL(request.url()).pathname);
      page.on('request', record);
      await page.reload();
      await page.getByRole('heading', { name: `Hola, ${ANA.name}` }).waitFor();
      await amount.waitFor();
      page.off('request', record);
      expect(page.url()).toBe(`${miclub.baseUrl}/mi-club`);
      expect(asked).toContain('/api/balance');
      expect(asked).not.toContain('/api/refresh');

      const loggedOut = page.waitForResponse((r) => r.url().endsWith('/api/logout'));
      await page.getByRole('button', { name: 'Cerrar sesión' }).click();
      expect((await loggedOut).status()).toBe(204);
      await page.waitForURL('**/login');
      await page.getByRole('heading', { level: 1, name: 'Inicia sesión' }).waitFor();
      expect((await context.cookies()).filter((c) => ['is-logged', 'session-fresh'].includes(c.name))).toEqual([]);
      expect((await context.request.get(`${miclub.baseUrl}/api/profile`)).status()).toBe(401);
      await page.goto(`${miclub.baseUrl}/mi-club`);
      await page.waitForURL('**/login');
    } finally {
      await context.close();
    }
  });

  it("shows the server's message for a wrong password", async () => {
    const { context, page } = await newPage();
    try {
      await fillCredentials(page, 'NoEsMiClave1');
      const answer = page.waitForResponse((r) => r.url().endsWith('/api/login') && r.request().method() === 'POST');
      await page.getByRole('button', { name: 'Ingresar' }).click();
      const response = await answer;
      expect(response.status()).toBe(401);
      const body = (await response.json()) as { code: string; message: string };
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect((await alert.textContent())?.trim()).toBe(capitalizeFirst(body.message));
      expect(body.code).toBe('ERR_INVALID_CREDENTIALS');
      const dataLayer = await page.evaluate(() => (window as unknown as { dataLayer?: unknown[] }).dataLayer ?? []);
      expect(dataLayer).toContainEqual(expect.objectContaining({ event: 'login_fallido' }));
    } finally {
      await context.close();
    }
  });

  it('has no serious or critical accessibility violation on /login, and screenshots it', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/login`);
      await page.getByLabel('RUT', { exact: true }).waitFor();
      expect(await seriousViolations(page)).toEqual([]);
      await screenshots(page, 'login');
    } finally {
      await context.close();
    }
  });

  it('opens the login modal from the header, keeps focus in it and returns focus on Escape', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/promociones`);
      const opener = page.getByRole('button', { name: 'Iniciar sesión' });
      await opener.click();
      const dialog = page.getByRole('dialog', { name: 'Inicia sesión' });
      await dialog.waitFor();
      await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'user');
      for (let i = 0; i < 12; i += 1) {
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => !!document.activeElement?.closest('[role="dialog"]'))).toBe(true);
      }
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      expect(await opener.evaluate((element) => element === document.activeElement)).toBe(true);
    } finally {
      await context.close();
    }
  });

  it('keeps the initial JavaScript of /login small', async () => {
    const { context, page } = await newPage();
    try {
      const scripts: { url: string; bytes: number; gzip: number }[] = [];
      page.on('response', async (response) => {
        if (!new URL(response.url()).pathname.endsWith('.js')) return;
        const body = await response.body().catch(() => null);
        if (body) scripts.push({ url: new URL(response.url()).pathname, bytes: body.length, gzip: gzipSync(body, { level: 9 }).length });
      });
      await page.goto(`${miclub.baseUrl}/login`, { waitUntil: 'networkidle' });
      await page.getByLabel('RUT', { exact: true }).waitFor();
      const total = scripts.reduce((sum, s) => sum + s.gzip, 0);
      await writeFile(join(RESULTS_DIR, 'login-initial-js.json'), JSON.stringify({ totalGzipBytes: total, scripts }, null, 2));
      console.log(`initial JS of /login: ${(total / 1024).toFixed(1)} KiB gzipped in ${scripts.length} files`);
      expect(total).toBeLessThan(150 * 1024);
    } finally {
      await context.close();
    }
  });
});
