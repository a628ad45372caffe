/**
 * The brand on every screen (issue #19, item 9) against the real portal in Chromium: axe finds no
 * serious or critical violation (contrast included) at 375 and 1280 px, logged out and logged in;
 * the logo is the SVG drawn for Mi Club at a fixed size, the favicon is its mark, and focus is
 * visible in the brand's ring. `MICLUB_SCREENSHOTS_DIR` (set by scripts/screenshots.sh) also
 * writes a PNG of each screen at both widths there.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { launchBrowser } from './support/browser';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';
import { tourLoggedIn, tourLoggedOut } from './support/tour';

const WIDTHS = [375, 1280] as const;
const SCREENSHOTS_DIR = process.env.MICLUB_SCREENSHOTS_DIR ? resolve(process.env.MICLUB_SCREENSHOTS_DIR) : null;

let miclub: Miclub;
let browser: Browser;

beforeAll(async () => {
  miclub = await startMiclub();
  browser = await launchBrowser();
  if (SCREENSHOTS_DIR) await mkdir(SCREENSHOTS_DIR, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  await miclub?.stop();
});

async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'es-CL' });
  return { context, page: await context.newPage() };
}

/** axe at both widths (and the screenshots when asked), as "screen at width: rule (targets)". */
async function checkScreen(page: Page, screen: string): Promise<string[]> {
  const problems: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 375 ? 667 : 900 });
    for (const violation of await seriousViolations(page)) {
      problems.push(`${screen} at ${width}: ${violation.id} (${violation.targets.slice(0, 3).join(' | ')})`);
    }
    if (SCREENSHOTS_DIR) {
      await page.screenshot({ path: join(SCREENSHOTS_DIR, `${screen}-${width}.png`), fullPage: true });
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  return problems;
}

describe(`the brand against ${PORTAL_UNDER_TEST}`, () => {
  it('axe finds nothing serious or critical on any screen at 375 and 1280 px, logged out or logged in', { timeout: 600_000 }, async () => {
    const { context, page } = await newPage();
    const problems: string[] = [];
    const screens: string[] = [];
    const visit = async (screen: string) => {
      screens.push(screen);
      problems.push(...(await checkScreen(page, screen)));
    };
    try {
      await tourLoggedOut(page, miclub.baseUrl, visit);
      await tourLoggedIn(page, miclub.baseUrl, visit);
      expect(screens).toEqual(expect.arrayContaining(['login', 'promociones', 'registro-paso-2', 'mi-club', 'mi-club-mis-movimientos']));
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows the Mi Club logo at a fixed size in the header, on /login and as the favicon, a visible focus ring, and passes axe with the phone menu or the login modal open', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/promociones`);
      await page.locator('h1').first().waitFor();
      const headerLogo = page.locator('.site-header svg.logo');
      expect(await headerLogo.getAttribute('width')).toBe('119');
      expect(await headerLogo.getAttribute('height')).toBe('36');
      expect(await page.getByRole('link', { name: 'Mi Club, inicio' }).count()).toBe(1);

      const favicon = await page.locator('link[rel="icon"]').getAttribute('href');
      const icon = await context.request.get(`${miclub.baseUrl}${favicon}`);
      expect(icon.status()).toBe(200);
      expect(await icon.text()).toContain('#ff8a3d');

      // The first Tab shows the skip link; the next reaches the logo link, ringed in the
      // header's light focus colour, 3 px wide.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      const ring = await page.evaluate(() => {
        const focused = document.activeElement as HTMLElement;
        const style = getComputedStyle(focused);
        return { label: focused.getAttribute('aria-label'), width: style.outlineWidth, color: style.outlineColor, styleName: style.outlineStyle };
      });
      expect(ring).toEqual({ label: 'Mi Club, inicio', width: '3px', color: 'rgb(255, 211, 168)', styleName: 'solid' });

      await page.goto(`${miclub.baseUrl}/login`);
      await page.locator('h1').first().waitFor();
      expect(await page.locator('.login-page svg.logo').getAttribute('height')).toBe('40');

      // What opens over a screen: the top navigation on a phone and the login modal.
      await page.setViewportSize({ width: 375, height: 667 });
      await page.goto(`${miclub.baseUrl}/promociones`);
      await page.locator('h1').first().waitFor();
      await page.getByRole('navigation', { name: 'Principal' }).getByRole('button', { name: 'Menú' }).click();
      expect(await seriousViolations(page)).toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Iniciar sesión' }).click();
      await page.getByRole('dialog').waitFor();
      expect(await seriousViolations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
