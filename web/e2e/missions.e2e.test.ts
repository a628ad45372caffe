/**
 * Misiones against the standalone binary: Ana logs in, sees her missions with progress and the
 * campaign banners of Mi Cuenta; then a store system posts a purchase in a mission's category
 * through the internal gRPC API (accounts PostPurchase with the "pos" service token) and the
 * progress moves, carried by the purchase event from accounts to missions. Each mission shows its
 * category's pictogram, an image named by the category.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import { postPurchase } from './support/grpc';
import { accountMenu, ANA, logIn, screenshots } from './support/member';
import { startMiclub, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

type ApiMission = {
  missionId: string;
  categoryId: number;
  title: string;
  goalKind: 'amount' | 'purchases';
  goal: number;
  progress: number;
  status: 'in_progress' | 'completed' | 'expired';
};

let miclub: Miclub;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  miclub = await startMiclub();
  browser = await launchBrowser();
  context = await browser.newContext(DESKTOP);
  page = await context.newPage();
  await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: 'ana@example.cl' });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await miclub?.stop();
});

const menu = (label: string) => accountMenu(page, label);

/** GET /api/missions with the page's own session cookie. */
async function missionsNow(): Promise<ApiMission[]> {
  const response = await page.request.get(`${miclub.baseUrl}/api/missions`);
  expect(response.status(), await response.text()).toBe(200);
  return ((await response.json()) as { missions: ApiMission[] }).missions;
}

function cardOf(title: string) {
  return page.getByRole('listitem').filter({ has: page.getByRole('heading', { level: 3, name: title, exact: true }) });
}

function progressOf(title: string) {
  return cardOf(title).getByRole('progressbar');
}

/** The demo's categories (services/missions seed.rs) and the names their icons are read out as. */
const DEMO_CATEGORY_NAMES: Readonly<Record<number, string>> = {
  2: 'Aceites',
  10: 'Carnes de vacuno',
  34: 'Licores',
  57: 'Vestuario',
};

describe(`missions against ${PORTAL_UNDER_TEST}`, () => {
  it('shows the campaign banners on Mi Cuenta', async () => {
    const carousel = page.getByRole('region', { name: 'Campañas Mi Club' });
    await carousel.waitFor();
    const alt = await carousel.getByRole('img').first().getAttribute('alt');
    expect(alt?.length ?? 0).toBeGreaterThan(0);
    const before = await carousel.getByText(/^\d+ de \d+$/).innerText();
    await carousel.getByRole('button', { name: 'Campaña siguiente' }).click();
    expect(await carousel.getByText(/^\d+ de \d+$/).innerText()).not.toBe(before);
  });

  it("shows each of Ana's missions with its category's icon, named by the category", async () => {
    await menu('Misiones').waitFor();
    await menu('Misiones').click();
    await page.getByRole('progressbar').first().waitFor();
    const missions = await missionsNow();
    expect(missions.length).toBeGreaterThan(0);
    for (const mission of missions) {
      const name = DEMO_CATEGORY_NAMES[mission.categoryId];
      expect(name, `a demo category: ${mission.categoryId}`).toBeDefined();
      const card = cardOf(mission.title);
      // One image per card, the category's pictogram: screen readers hear the name once.
      expect(await card.getByRole('img').count()).toBe(1);
      const icon = card.getByRole('img', { name, exact: true });
      expect(await icon.isVisible()).toBe(true);
      expect(await icon.evaluate((svg) => svg.tagName.toLowerCase())).toBe('svg');
      const box = await icon.boundingBox();
      expect(box?.width ?? 0).toBeGreaterThan(16);
    }
  });

  it('shows Misiones with progress, and the progress moves after a purchase is posted', async () => {
    // has_missions came from missions at login: the entry is there.
    await menu('Misiones').waitFor();
    await menu('Misiones').click();
    await page.getByRole('heading', { level: 2, name: 'Misiones', exact: true }).waitFor();
    await page.getByRole('progressbar').first().waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'misiones');

    const mission = (await missionsNow()).find((m) => m.status === 'in_progress' && m.progress < m.goal);
    expect(mission, 'Ana has a mission in progress').toBeDefined();
    if (!mission) return;
    const bar = progressOf(mission.title);
    expect(Number(await bar.getAttribute('aria-valuenow'))).toBe(mission.progress);
    expect(Number(await bar.getAttribute('aria-valuemax'))).toBe(mission.goal);

    // A purchase in the mission's category, short of the goal when the goal allows it.
    const step = mission.goalKind === 'amount' ? Math.max(1, Math.min(1_000, mission.goal - mission.progress)) : 1;
    const posted = await postPurchase(miclub, {
      memberDocument: ANA.user,
      lines: [
        { category: 'CATEGORY_OTHER', amount: mission.goalKind === 'amount' ? step : 2_500, product_category_id: mission.categoryId },
        // A line of another category does not count for this mission.
        { category: 'CATEGORY_OTHER', amount: 4_000, product_category_id: mission.categoryId === 57 ? 56 : 57 },
      ],
    });
    expect(posted.purchase_id).not.toBe('');
    const expected = Math.min(mission.goal, mission.progress + step);

    // The event reaches missions in the background: reopen the section until it shows.
    const deadline = Date.now() + 30_000;
    let shown = mission.progress;
    while (Date.now() < deadline) {
      await menu('Mi Cuenta').click();
      // The section asks again every time it opens: wait for that answer.
      const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/missions');
      await menu('Misiones').click();
      await answer;
      await bar.waitFor();
      shown = Number(await bar.getAttribute('aria-valuenow'));
      if (shown !== mission.progress) break;
      await page.waitForTimeout(1_000);
    }
    expect(shown).toBe(expected);
    const text = await cardOf(mission.title).getByTestId('mission-progress').innerText();
    expect(text).toMatch(mission.goalKind === 'amount' ? /^\$[\d.]+ de \$[\d.]+$/ : /^\d+ de \d+ compras?$/);
    await screenshots(page, 'misiones-despues-de-compra');
  });
});
