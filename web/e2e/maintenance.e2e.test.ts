import { join } from 'node:path';

import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { launchBrowser } from './support/browser';
import { startMiclub, type Miclub } from './support/miclub';
import { RESULTS_DIR } from './support/paths';

let miclub: Miclub;
let browser: Browser;

beforeAll(async () => {
  miclub = await startMiclub({ APP_GATEWAY__FLAGS__PORTAL_ENABLED: 'false' });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await miclub?.stop();
});

describe('the maintenance flag', () => {
  it('shows the maintenance screen instead of the portal', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
    try {
      const page = await context.newPage();
      for (const path of ['/login', '/mi-club', '/promociones']) {
        await page.goto(`${miclub.baseUrl}${path}`);
        await page.getByText('¡PRONTO EL NUEVO MI CLUB!').waitFor();
        expect(await page.getByText('Estamos trabajando para brindarte la mejor experiencia').isVisible()).toBe(true);
        expect(await page.getByLabel('RUT', { exact: true }).count()).toBe(0);
        expect(await page.getByRole('banner').count()).toBe(0);
      }
      await page.screenshot({ path: join(RESULTS_DIR, 'screenshots', 'maintenance-375.png'), fullPage: true });
    } finally {
      await context.close();
    }
  });
});
