/**
 * A new version of the terms against the real binary (issue #19, item 7): the back office
 * publishes one (content PublishTerms as "ops"), Ana, who accepted the shipped version, logs in
 * and is asked in the spec's modal to accept or reject it; she accepts, the decision is recorded
 * with the new version, and a reload asks nothing. A decision naming a version that is not in
 * force is refused and records nothing.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DESKTOP, launchBrowser } from './support/browser';
import { publishTerms } from './support/grpc';
import { ANA, ANA_EMAIL, logIn } from './support/member';
import { startMiclub, type Miclub } from './support/miclub';

const NEW_VERSION = `e2e-${Date.now()}`;
const NEW_TITLE = 'Términos y condiciones de Mi Club (nueva versión)';
const PROMPT = 'Actualizamos nuestros términos y condiciones';

let miclub: Miclub;
let browser: Browser;
let context: BrowserContext;
let page: Page;

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

async function profileTerms(): Promise<{ agreement: string | null; version: string | null }> {
  const answer = await context.request.get(`${miclub.baseUrl}/api/profile`);
  expect(answer.status()).toBe(200);
  return (await answer.json()).terms_agreement;
}

describe('a new version of the terms', () => {
  it('is not put to Ana while the version she accepted is in force', async () => {
    await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL });
    await page.getByRole('heading', { level: 1, name: `Hola, ${ANA.name}` }).waitFor();
    await page.waitForResponse((r) => new URL(r.url()).pathname === '/api/terms-and-conditions').catch(() => null);
    expect(await page.getByRole('dialog').count()).toBe(0);
    const current = await (await context.request.get(`${miclub.baseUrl}/api/terms-and-conditions`)).json();
    expect((await profileTerms()).version).toBe(current.version);
    await page.getByRole('button', { name: 'Cerrar sesión' }).first().click();
    await page.waitForURL('**/login');
  });

  it('is asked after login once published, and accepting records the new version', async () => {
    const published = await publishTerms(miclub, {
      version: NEW_VERSION,
      title: NEW_TITLE,
      body: 'Primer párrafo de la nueva versión.\n\nSegundo párrafo.',
    });
    expect(published.created).toBe(true);

    await logIn(
      page,
      miclub.baseUrl,
      { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL },
      { navigate: true },
    );
    const dialog = page.getByRole('dialog', { name: PROMPT });
    await dialog.waitFor();
    await dialog.getByRole('heading', { name: NEW_TITLE }).waitFor();
    const decided = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/terms-and-conditions' && r.request().method() === 'POST',
    );
    await dialog.getByRole('button', { name: 'Aceptar' }).click();
    const answer = await decided;
    expect(answer.status()).toBe(200);
    expect(answer.request().postDataJSON()).toEqual({ acceptTermsAndConditions: true, version: NEW_VERSION });
    await dialog.waitFor({ state: 'detached' });
    expect(await profileTerms()).toMatchObject({ agreement: 'accepted', version: NEW_VERSION });
  });

  it('is not asked again after a reload', async () => {
    await page.reload();
    await page.getByRole('heading', { level: 1, name: `Hola, ${ANA.name}` }).waitFor();
    await page.waitForResponse((r) => new URL(r.url()).pathname === '/api/terms-and-conditions').catch(() => null);
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('refuses a decision on a version that is not in force and records nothing', async () => {
    for (const version of ['2026-11-01', 'no-existe', '2099-01-01']) {
      const answer = await context.request.post(`${miclub.baseUrl}/api/terms-and-conditions`, {
        headers: { 'x-miclub-csrf': '1' },
        data: { acceptTermsAndConditions: false, version },
      });
      expect(answer.status()).toBe(409);
      expect((await answer.json()).code).toBe('ERR_CONFLICT');
    }
    expect(await profileTerms()).toMatchObject({ agreement: 'accepted', version: NEW_VERSION });
  });
});
