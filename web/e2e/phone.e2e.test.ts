/**
 * Phone first (issue #19, item 2) against the real portal in Chromium: at 320, 375 and 414 px no
 * screen scrolls sideways (`scrollWidth ≤ innerWidth`), logged out and logged in, the three steps
 * of /registro included; at 375 × 667 every entry of the top navigation, of Mi Cuenta's menu and
 * of the footer can be reached and clicked as a thumb would (Playwright's click, never forced),
 * and the stepper's step names are shown whole.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { launchBrowser } from './support/browser';
import { accountMenu, ANA, logIn } from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';
import { accountSections, tourLoggedIn, tourLoggedOut } from './support/tour';

const PHONE_WIDTHS = [320, 375, 414] as const;
const PHONE = { width: 375, height: 667 } as const;

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
  const context = await browser.newContext({ viewport: PHONE, locale: 'es-CL', hasTouch: true });
  return { context, page: await context.newPage() };
}

/** The widths at which `screen` scrolls sideways, with the elements that stick out. */
async function sidewaysScroll(page: Page, screen: string): Promise<string[]> {
  const problems: string[] = [];
  for (const width of PHONE_WIDTHS) {
    await page.setViewportSize({ width, height: PHONE.height });
    const measured = await page.evaluate(() => {
      const inner = window.innerWidth;
      const wide = Array.from(document.querySelectorAll('body *'))
        .filter((element) => element.getBoundingClientRect().right > inner + 0.5)
        .slice(0, 3)
        .map((element) => `${element.tagName.toLowerCase()}.${Array.from(element.classList).join('.')}`);
      return { scrollWidth: document.documentElement.scrollWidth, inner, wide };
    });
    if (measured.scrollWidth > measured.inner) {
      problems.push(`${screen} at ${width}: scrollWidth ${measured.scrollWidth} > ${measured.inner} (${measured.wide.join(', ')})`);
    }
  }
  await page.setViewportSize(PHONE);
  return problems;
}

/** Every step name of the registration's stepper is on screen and not cut short. */
async function stepperReadable(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    Array.from(document.querySelectorAll('.steps__item')).flatMap((item) => {
      const box = item.getBoundingClientRect();
      const name = item.querySelector('.steps__name');
      const cut = name !== null && name.scrollWidth > name.clientWidth + 0.5;
      // A word split across two lines ("Document / o") reads as cut too.
      const text = name?.firstChild;
      const split =
        text instanceof Text &&
        [...(text.data.matchAll(/\S+/g) as Iterable<RegExpMatchArray>)].some((match) => {
          const range = document.createRange();
          range.setStart(text, match.index ?? 0);
          range.setEnd(text, (match.index ?? 0) + match[0].length);
          return range.getClientRects().length > 1;
        });
      return box.left < 0 || box.right > window.innerWidth || cut || split ? [item.textContent ?? ''] : [];
    }),
  );
}

describe(`phone widths against ${PORTAL_UNDER_TEST}`, () => {
  it('no screen scrolls sideways at 320, 375 or 414 px, logged out or logged in, and the stepper reads whole', { timeout: 600_000 }, async () => {
    const { context, page } = await newPage();
    const problems: string[] = [];
    const visited: string[] = [];
    try {
      await tourLoggedOut(page, miclub.baseUrl, async (screen) => {
        visited.push(screen);
        problems.push(...(await sidewaysScroll(page, screen)));
        if (screen.startsWith('registro-paso')) {
          for (const width of PHONE_WIDTHS) {
            await page.setViewportSize({ width, height: PHONE.height });
            problems.push(...(await stepperReadable(page)).map((step) => `${screen} at ${width}: step "${step}" cut`));
          }
          await page.setViewportSize(PHONE);
        }
      });
      await tourLoggedIn(page, miclub.baseUrl, async (screen) => {
        visited.push(screen);
        problems.push(...(await sidewaysScroll(page, screen)));
      });
      expect(visited).toEqual(expect.arrayContaining(['login', 'registro-paso-3', 'mi-club', 'mi-club-mis-datos']));
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('at 375 × 667 the top navigation opens from its button and every link in it can be clicked', async () => {
    const { context, page } = await newPage();
    try {
      await page.goto(`${miclub.baseUrl}/promociones`);
      await page.locator('h1').first().waitFor();
      const nav = page.getByRole('navigation', { name: 'Principal' });
      const toggle = nav.getByRole('button', { name: 'Menú' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await nav.getByRole('link').first().isVisible()).toBe(false);
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      const links = nav.getByRole('link');
      expect(await links.count()).toBe(4);
      for (const link of await links.all()) {
        // trial: every actionability check of a real click (visible, stable, not covered,
        // in the viewport after scrolling) without leaving for the external page.
        await link.click({ trial: true, timeout: 5_000 });
      }
      await page.keyboard.press('Escape');
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await nav.getByRole('link').first().isVisible()).toBe(false);

      // Every footer group's title is readable and every link in it clickable.
      const groups = page.locator('footer section');
      expect(await groups.count()).toBe(5);
      for (const group of await groups.all()) {
        await group.getByRole('heading').scrollIntoViewIfNeeded();
        expect(await group.getByRole('heading').isVisible()).toBe(true);
        for (const link of await group.getByRole('link').all()) await link.click({ trial: true, timeout: 5_000 });
      }
    } finally {
      await context.close();
    }
  });

  it('at 375 × 667 every entry of Mi Cuenta\'s menu, Cerrar sesión included, is clicked without forcing', async () => {
    const { context, page } = await newPage();
    try {
      await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: 'ana@example.cl' });
      await page.getByTestId('balance-amount').waitFor();
      const menu = page.getByRole('navigation', { name: 'Menú de mi cuenta' });
      const sections = await accountSections(page);
      expect(sections).toEqual(expect.arrayContaining(['Mi Cuenta', 'Mis Datos', 'Mis Movimientos', 'Términos y Condiciones']));
      for (const label of [...sections.slice(1), sections[0] ?? 'Mi Cuenta']) {
        await accountMenu(page, label).click({ timeout: 5_000 });
        await expect.poll(() => accountMenu(page, label).getAttribute('aria-current')).toBe('page');
      }
      await menu.getByRole('button', { name: 'Cerrar sesión', exact: true }).click({ timeout: 5_000 });
      await page.waitForURL('**/login');
    } finally {
      await context.close();
    }
  });
});
