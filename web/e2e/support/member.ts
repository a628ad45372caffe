/**
 * Logging a member in through the real /login page (the code read from the dev mailbox), and
 * screenshots at the widths the layout is checked at.
 */
import { join } from 'node:path';

import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

import { readMailbox, waitForNewCode } from './miclub';
import { RESULTS_DIR } from './paths';

export const ANA = { user: '11.111.111-1', typed: '111111111', password: 'MiClub2026!', name: 'Ana' };
/** Where Ana's codes go (the distributed topology's mail catcher may be told another address). */
export const ANA_EMAIL = process.env.MICLUB_E2E_ANA_EMAIL ?? 'ana@example.cl';
/** The demo member with a login but no club account (balance 406). */
export const BRUNO = { user: '22.222.222-2', typed: '222222222', password: 'MiClub2026!', name: 'Bruno' };
export const BRUNO_EMAIL = process.env.MICLUB_E2E_BRUNO_EMAIL ?? 'bruno@example.cl';
export const WIDTHS = [375, 958, 1280] as const;

type Credentials = { typed: string; password: string; email: string };

/**
 * Logs in from /login and waits for /mi-club (or `landing`, a URL glob or predicate, when the login
 * goes back where the member was). `navigate: false` when the page already shows /login (after a
 * logout, or a deep link that sent a visitor there).
 */
export async function logIn(
  page: Page,
  baseUrl: string,
  credentials: Credentials,
  options: { navigate?: boolean; landing?: string | RegExp | ((url: URL) => boolean) } = {},
) {
  if (options.navigate ?? true) await page.goto(`${baseUrl}/login`);
  await page.getByLabel('RUT', { exact: true }).pressSequentially(credentials.typed);
  await page.getByLabel('Contraseña', { exact: true }).fill(credentials.password);
  const before = await readMailbox(baseUrl);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  const codeField = page.getByLabel('Código de verificación');
  await codeField.waitFor();
  await codeField.fill(await waitForNewCode(baseUrl, credentials.email, before));
  await page.getByRole('button', { name: 'Validar código' }).click();
  await page.waitForURL(options.landing ?? '**/mi-club');
}

/** The viewport at each width, as a person sees it (fixed bars included). */
export async function screenshots(page: Page, name: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(100);
    await page.screenshot({ path: join(RESULTS_DIR, 'screenshots', `${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** What the page pushed to `window.dataLayer`. */
export function dataLayer(page: Page): Promise<Record<string, unknown>[]> {
  return page.evaluate(() => (window as unknown as { dataLayer?: Record<string, unknown>[] }).dataLayer ?? []);
}

/** The sections of Mi Cuenta's menu and their addresses (the spec's indexes 0-4, then the card's 5). */
export const SECTIONS = [
  { label: 'Mi Cuenta', path: '/mi-club', heading: 'Tu saldo Mi Club' },
  { label: 'Mis Datos', path: '/mi-club/mis-datos', heading: 'Mis Datos' },
  { label: 'Mis Movimientos', path: '/mi-club/movimientos', heading: 'Mis Movimientos' },
  { label: 'Términos y Condiciones', path: '/mi-club/terminos', heading: 'Términos y Condiciones' },
  { label: 'Misiones', path: '/mi-club/misiones', heading: 'Misiones' },
  { label: 'Mi Tarjeta', path: '/mi-club/tarjeta', heading: 'Mi Tarjeta' },
] as const;

/** The entry `label` of Mi Cuenta's menu (Mi Cuenta, Mis Datos, Términos y Condiciones…): a link. */
export function accountMenu(page: Page, label: string): Locator {
  return page.getByRole('navigation', { name: 'Menú de mi cuenta' }).getByRole('link', { name: label, exact: true });
}

/** Opens a section of Mi Cuenta from its menu and waits for its address and its heading. */
export async function openSection(page: Page, label: string) {
  await accountMenu(page, label).click();
  const section = SECTIONS.find((candidate) => candidate.label === label);
  if (section) await page.waitForURL((url) => url.pathname === section.path);
  await page.getByRole('heading', { level: 2, name: section?.heading ?? label, exact: true }).waitFor();
}

/**
 * Opens Actividad de la cuenta from Mis Datos (its own address) and waits for its heading; it
 * lists the member's open sessions, each closable, and "Cerrar las demás sesiones".
 */
export async function openAccountActivity(page: Page) {
  await openSection(page, 'Mis Datos');
  await page.getByRole('link', { name: 'Ver la actividad de la cuenta' }).click();
  await page.waitForURL((url) => url.pathname === '/mi-club/mis-datos/actividad');
  await page.getByRole('heading', { level: 2, name: 'Actividad de la cuenta' }).waitFor();
}

/** The open sessions Actividad de la cuenta lists (open it first with `openAccountActivity`). */
export function openSessions(page: Page): Locator {
  return page.getByRole('list', { name: 'Sesiones abiertas' }).getByTestId('open-session');
}

/** The answer of the page's next `method` request to `path`. */
export function apiResponse(page: Page, path: string, method = 'POST') {
  return page.waitForResponse((r) => new URL(r.url()).pathname === path && r.request().method() === method);
}

/** What /login says after a forced logout. */
export const SESSION_EXPIRED = 'Tu sesión expiró. Vuelve a iniciar sesión.';

/**
 * A session the gateway no longer knows, as the member meets it: the page's next member request
 * (opening Mis Movimientos) is refused with a 401, and the page lands on /login, with its way
 * back to the page (app/router.tsx), saying the session expired.
 */
export async function refusedAndSentToLogin(page: Page) {
  const refused = apiResponse(page, '/api/movements', 'GET');
  await accountMenu(page, 'Mis Movimientos').click();
  expect((await refused).status()).toBe(401);
  await page.waitForURL((url) => url.pathname === '/login');
  const notice = page.getByRole('status').filter({ hasText: SESSION_EXPIRED });
  await notice.waitFor();
  expect((await notice.textContent())?.trim()).toBe(SESSION_EXPIRED);
}
