/**
 * The maintenance switch against the standalone binary: the back office ("ops" service token)
 * sets content's portal flag over gRPC; a page left open shows the maintenance screen at its
 * next context poll without a reload, every route shows it on load, and the portal comes back
 * the same way. The browser's clock is fast-forwarded past the app's one-minute poll, so the test
 * waits only for the gateway's flag cache (1 s in the e2e runs).
 */
import { join } from 'node:path';

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { launchBrowser } from './support/browser';
import { waitForContextFlag } from './support/context';
import { setFlag } from './support/grpc';
import { startMiclub, type Miclub } from './support/miclub';
import { RESULTS_DIR } from './support/paths';

const MAINTENANCE_TITLE = '¡PRONTO EL NUEVO MI CLUB!';
const MAINTENANCE_TEXT = 'Estamos trabajando para brindarte la mejor experiencia';

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

/** Waits until GET /api/context (what the app polls) says `portalEnabled` is `enabled`. */
function waitForGatewayFlag(enabled: boolean): Promise<void> {
  return waitForContextFlag(miclub.baseUrl, 'portalEnabled', enabled);
}

async function newPage(width = 1280): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height: 800 }, locale: 'es-CL' });
  const page = await context.newPage();
  // Fake timers that run at normal speed, so the test can jump past the one-minute poll.
  await page.clock.install();
  return { context, page };
}

/** Marks the document, so the test can tell a later reload (the mark would be gone). */
async function markDocument(page: Page) {
  await page.evaluate(() => {
    (window as unknown as { __sinRecarga?: boolean }).__sinRecarga = true;
  });
}

async function stillSameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { __sinRecarga?: boolean }).__sinRecarga === true);
}

describe('the maintenance switch', () => {
  it('replaces an open page with the maintenance screen at the next poll, without a reload, and back', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/promociones`);
      await page.getByRole('heading', { level: 1, name: 'Promociones' }).waitFor();
      await markDocument(page);

      await setFlag(miclub, 'FLAG_NAME_PORTAL_ENABLED', false);
      await waitForGatewayFlag(false);
      await page.clock.fastForward('01:05');
      await page.getByText(MAINTENANCE_TITLE).waitFor({ timeout: 15_000 });
      expect(await page.getByText(MAINTENANCE_TEXT).isVisible()).toBe(true);
      expect(await page.getByRole('banner').count()).toBe(0);
      expect(await stillSameDocument(page)).toBe(true);
      expect(new URL(page.url()).pathname).toBe('/promociones');

      await setFlag(miclub, 'FLAG_NAME_PORTAL_ENABLED', true);
      await waitForGatewayFlag(true);
      await page.clock.fastForward('01:05');
      await page.getByRole('heading', { level: 1, name: 'Promociones' }).waitFor({ timeout: 15_000 });
      expect(await stillSameDocument(page)).toBe(true);
    } finally {
      await context.close();
    }
  }, 150_000);

  it('shows the maintenance screen instead of every route while the portal is off', async () => {
    await setFlag(miclub, 'FLAG_NAME_PORTAL_ENABLED', false);
    await waitForGatewayFlag(false);
    const { context, page } = await newPage(375);
    try {
      for (const path of ['/login', '/mi-club', '/promociones']) {
        await page.goto(`${miclub.baseUrl}${path}`);
        await page.getByText(MAINTENANCE_TITLE).waitFor();
        expect(await page.getByText(MAINTENANCE_TEXT).isVisible()).toBe(true);
        expect(await page.getByLabel('RUT', { exact: true }).count()).toBe(0);
        expect(await page.getByRole('banner').count()).toBe(0);
      }
      await page.screenshot({ path: join(RESULTS_DIR, 'screenshots', 'maintenance-375.png'), fullPage: true });
    } finally {
      await context.close();
      await setFlag(miclub, 'FLAG_NAME_PORTAL_ENABLED', true);
    }
  }, 120_000);
});
