/**
 * The sections of /mi-club by address (issue #19, item 3) and the balance as the hero of Mi Cuenta
 * (item 5), in Chromium against the real portal: each section opens by its URL, Back, Forward and
 * reload keep it, Mis Movimientos keeps its month and page in the query string, every route has
 * its title, a logged-out deep link comes back after the login, and on a 375 × 667 phone the name
 * and the balance are on screen without scrolling, in a space that does not move between states.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { DESKTOP, launchBrowser } from './support/browser';
import { accountMenu, ANA, ANA_EMAIL, logIn, openSection, SECTIONS } from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

const ANA_LOGIN = { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL };
const PHONE = { viewport: { width: 375, height: 667 }, locale: 'es-CL', isMobile: true, hasTouch: true } as const;

let miclub: Miclub;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  miclub = await startMiclub();
  browser = await launchBrowser();
  context = await browser.newContext(DESKTOP);
  page = await context.newPage();
  await logIn(page, miclub.baseUrl, ANA_LOGIN);
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await miclub?.stop();
});

const url = (path: string) => `${miclub.baseUrl}${path}`;

/** The path and query string the page is on. */
function here(): string {
  const { pathname, search } = new URL(page.url());
  return pathname + search;
}

async function expectSection(label: string) {
  const section = SECTIONS.find((candidate) => candidate.label === label);
  if (!section) throw new Error(`no section ${label}`);
  await page.getByRole('heading', { level: 2, name: section.heading, exact: true }).waitFor();
  expect(new URL(page.url()).pathname).toBe(section.path);
  expect(await accountMenu(page, label).getAttribute('aria-current')).toBe('page');
  await expect.poll(() => page.title()).toBe(`${label} · Mi Club`);
}

/** The month before the current one in Santiago, where Ana's demo data has 13 movements. */
function previousChileMonth(): { year: number; month: number } {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago', year: 'numeric', month: 'numeric' }).formatToParts(
    new Date(),
  );
  const year = Number(parts.find((p) => p.type === 'year')?.value);
  const month = Number(parts.find((p) => p.type === 'month')?.value);
  return month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
}

describe(`the sections of /mi-club against ${PORTAL_UNDER_TEST}`, () => {
  it('opens each section by its address, with its menu entry selected and its title', async () => {
    for (const section of SECTIONS) {
      await page.goto(url(section.path));
      await expectSection(section.label);
    }
    expect(await accountMenu(page, 'Mis Datos').getAttribute('href')).toBe('/mi-club/mis-datos');
  });

  it('keeps the section through Back, Forward and reload', async () => {
    await page.goto(url('/mi-club'));
    await expectSection('Mi Cuenta');
    await openSection(page, 'Mis Datos');
    await openSection(page, 'Mis Movimientos');
    await openSection(page, 'Términos y Condiciones');

    await page.goBack();
    await expectSection('Mis Movimientos');
    await page.goBack();
    await expectSection('Mis Datos');
    await page.goForward();
    await expectSection('Mis Movimientos');
    await page.reload();
    await expectSection('Mis Movimientos');
    await page.goBack();
    await expectSection('Mis Datos');
  });

  it('moves focus to the heading of the section opened from the menu', async () => {
    await page.goto(url('/mi-club'));
    await expectSection('Mi Cuenta');
    await accountMenu(page, 'Mis Movimientos').click();
    await expectSection('Mis Movimientos');
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent ?? ''))
      .toBe('Mis Movimientos');
  });

  it('keeps the month and the page of Mis Movimientos in the address, through reload and Back', async () => {
    const previous = previousChileMonth();
    const mes = `${previous.year}-${String(previous.month).padStart(2, '0')}`;
    await page.goto(url('/mi-club/movimientos'));
    await expectSection('Mis Movimientos');
    await page.getByTestId('movement').first().waitFor();
    await page.getByLabel('Año', { exact: true }).selectOption(String(previous.year));
    await page.getByLabel('Mes', { exact: true }).selectOption(String(previous.month));
    await page.getByText('Página 1 de 2', { exact: true }).waitFor();
    expect(here()).toBe(`/mi-club/movimientos?mes=${mes}`);

    await page.getByRole('button', { name: 'Siguiente' }).click();
    await page.getByText('Página 2 de 2', { exact: true }).waitFor();
    expect(here()).toBe(`/mi-club/movimientos?mes=${mes}&pagina=2`);
    expect(await page.getByTestId('movement').count()).toBe(3);

    await page.reload();
    await page.getByText('Página 2 de 2', { exact: true }).waitFor();
    expect(await page.getByTestId('movement').count()).toBe(3);
    expect(await page.getByLabel('Mes', { exact: true }).inputValue()).toBe(String(previous.month));

    await page.goBack();
    await page.getByText('Página 1 de 2', { exact: true }).waitFor();
    expect(here()).toBe(`/mi-club/movimientos?mes=${mes}`);
    expect(await page.getByTestId('movement').count()).toBe(10);
    await page.goBack();
    await expect.poll(() => here()).toBe('/mi-club/movimientos');
    await page.getByTestId('movement').first().waitFor();
  });

  it('falls back to the current month and page 1 for a malformed address, without an error', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    for (const query of ['?mes=2026-13&pagina=0', '?mes=1999-01&pagina=-4', '?mes=%3Cb%3E&pagina=1e9', '?pagina=99999999999']) {
      const answers: string[] = [];
      const listen = (request: { url: () => string }) => {
        if (new URL(request.url()).pathname === '/api/movements') answers.push(new URL(request.url()).search);
      };
      page.on('request', listen);
      await page.goto(url(`/mi-club/movimientos${query}`));
      await expectSection('Mis Movimientos');
      await page.getByTestId('movement').first().waitFor();
      page.off('request', listen);
      expect(answers.every((search) => search.endsWith('&page=1')), `${query}: ${answers.join(', ')}`).toBe(true);
    }
    expect(errors).toEqual([]);
  });

  it('answers an unknown address under /mi-club with the not-found page', async () => {
    await page.goto(url('/mi-club/no-existe'));
    await page.getByRole('heading', { level: 1, name: 'No encontramos lo que buscas.' }).waitFor();
    await expect.poll(() => page.title()).toBe('Página no encontrada · Mi Club');
    expect(await page.getByRole('navigation', { name: 'Menú de mi cuenta' }).count()).toBe(0);
  });

  it('gives every route its own title', async () => {
    const titles: Record<string, string> = {
      '/promociones': 'Promociones · Mi Club',
      '/alianzas': 'Alianzas · Mi Club',
      '/preguntas-frecuentes': 'Preguntas frecuentes · Mi Club',
      '/preguntas-login': 'Preguntas frecuentes para iniciar sesión · Mi Club',
      '/terminos-y-condiciones': 'Términos y condiciones · Mi Club',
      '/registro': 'Regístrate · Mi Club',
      '/recuperar-contrasena': 'Recupera tu contraseña · Mi Club',
      '/no-existe': 'Página no encontrada · Mi Club',
    };
    for (const [path, title] of Object.entries(titles)) {
      await page.goto(url(path));
      await expect.poll(() => page.title(), { message: path }).toBe(title);
    }
    // A client navigation changes it too (the header's logo, a link to Mi Cuenta whatever the
    // header's greeting says).
    await page.getByRole('banner').getByRole('link', { name: 'Mi Club, inicio' }).click();
    await expect.poll(() => page.title()).toBe('Mi Cuenta · Mi Club');
  });

  it('brings a visitor from a deep link through the login back to the section, query string included', async () => {
    const visitor = await browser.newContext(DESKTOP);
    const visitorPage = await visitor.newPage();
    try {
      const previous = previousChileMonth();
      const target = `/mi-club/movimientos?mes=${previous.year}-${String(previous.month).padStart(2, '0')}&pagina=2`;
      await visitorPage.goto(url(target));
      await visitorPage.waitForURL((at) => at.pathname === '/login');
      expect(new URL(visitorPage.url()).searchParams.get('redirect')).toBe(target);
      await expect.poll(() => visitorPage.title()).toBe('Inicia sesión · Mi Club');
      await logIn(visitorPage, miclub.baseUrl, ANA_LOGIN, { navigate: false, landing: (at: URL) => at.pathname === '/mi-club/movimientos' });
      expect(new URL(visitorPage.url()).search).toBe(target.slice(target.indexOf('?')));
      await visitorPage.getByText('Página 2 de 2', { exact: true }).waitFor();
      await expect.poll(() => visitorPage.title()).toBe('Mis Movimientos · Mi Club');
    } finally {
      await visitor.close();
    }
  });

  it.each(['//example.com/mi-club', '/\\example.com/mi-club', '/\t/example.com/mi-club', 'https://example.com/mi-club'])(
    'does not follow a redirect that leaves the portal (%j)',
    async (redirect) => {
      const visitor = await browser.newContext(DESKTOP);
      const visitorPage = await visitor.newPage();
      const left: string[] = [];
      visitorPage.on('request', (request) => {
        if (!request.url().startsWith(miclub.baseUrl) && request.isNavigationRequest()) left.push(request.url());
      });
      try {
        await visitorPage.goto(url(`/login?redirect=${encodeURIComponent(redirect)}`));
        await logIn(visitorPage, miclub.baseUrl, ANA_LOGIN, { navigate: false, landing: (at: URL) => at.origin === miclub.baseUrl && at.pathname !== '/login' });
        await visitorPage.getByRole('heading', { level: 1, name: /^Hola/ }).waitFor();
        expect(new URL(visitorPage.url()).origin).toBe(miclub.baseUrl);
        expect(left).toEqual([]);
      } finally {
        await visitor.close();
      }
    },
  );
});

describe(`the balance as the hero of Mi Cuenta on a phone against ${PORTAL_UNDER_TEST}`, () => {
  let phone: BrowserContext;
  let phonePage: Page;

  beforeAll(async () => {
    phone = await browser.newContext(PHONE);
    phonePage = await phone.newPage();
    await logIn(phonePage, miclub.baseUrl, ANA_LOGIN);
  });

  afterAll(async () => {
    await phone?.close();
  });

  it('shows the name and the balance at 375 × 667 without scrolling', async () => {
    await phonePage.goto(url('/mi-club'));
    const greeting = phonePage.getByRole('heading', { level: 1, name: `Hola, ${ANA.name}` });
    const amount = phonePage.getByTestId('balance-amount');
    await greeting.waitFor();
    await amount.waitFor();
    expect(await phonePage.evaluate(() => window.scrollY)).toBe(0);
    const bottomBar = await phonePage.getByRole('navigation', { name: 'Menú de mi cuenta' }).boundingBox();
    for (const [what, box] of [
      ['greeting', await greeting.boundingBox()],
      ['amount', await amount.boundingBox()],
    ] as const) {
      expect(box, what).not.toBeNull();
      expect(box?.y ?? -1, what).toBeGreaterThanOrEqual(0);
      expect((box?.y ?? 0) + (box?.height ?? 0), what).toBeLessThanOrEqual(667);
      // Not hidden behind the fixed menu bar either.
      expect((box?.y ?? 0) + (box?.height ?? 0), what).toBeLessThanOrEqual(bottomBar?.y ?? 667);
    }
  });

  it('keeps the balance card in the same place and size while loading, on failure and with the balance', async () => {
    const cardBox = async () => {
      const box = await phonePage.locator('.balance-card').boundingBox();
      if (!box) throw new Error('no balance card');
      return box;
    };

    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await phonePage.route('**/api/balance', async (route) => {
      await held;
      await route.continue();
    });
    await phonePage.goto(url('/mi-club'));
    await phonePage.getByText('Cargando tu saldo…').waitFor({ state: 'attached' });
    const loading = await cardBox();
    release();
    await phonePage.getByTestId('balance-amount').waitFor();
    const success = await cardBox();
    await phonePage.unroute('**/api/balance');

    await phonePage.route('**/api/balance', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify({ code: 'ERR_UNAVAILABLE', message: 'x' }) }),
    );
    await phonePage.goto(url('/mi-club'));
    await phonePage.getByRole('alert').filter({ hasText: 'No pudimos cargar tu saldo' }).waitFor();
    const failed = await cardBox();
    await phonePage.unroute('**/api/balance');

    for (const [state, box] of [
      ['loading', loading],
      ['failed', failed],
    ] as const) {
      expect(box.y, state).toBe(success.y);
      expect(box.height, state).toBe(success.height);
    }
  });

  it('lays out Mi Cuenta with no noticeable shift while it loads (cumulative layout shift under 0.1)', async () => {
    await phonePage.goto(url('/mi-club'));
    await phonePage.getByTestId('balance-amount').waitFor();
    await phonePage.getByRole('region', { name: 'Campañas Mi Club' }).waitFor();
    await phonePage.waitForLoadState('networkidle');
    const shift = await phonePage.evaluate(
      () =>
        new Promise<number>((resolve) => {
          let total = 0;
          new PerformanceObserver((list) => {
            for (const entry of list.getEntries() as unknown as { value: number; hadRecentInput: boolean }[]) {
              if (!entry.hadRecentInput) total += entry.value;
            }
          }).observe({ type: 'layout-shift', buffered: true });
          setTimeout(() => resolve(total), 500);
        }),
    );
    console.log(`cumulative layout shift on /mi-club at 375 × 667: ${shift.toFixed(4)}`);
    expect(shift).toBeLessThan(0.1);
  });
});
