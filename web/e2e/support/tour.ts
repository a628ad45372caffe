/**
 * A walk through every screen of the portal, for the checks that hold on all of them (no
 * horizontal scroll, axe, screenshots): the public routes logged out, /login, the three steps of
 * /registro, then, logged in as Ana, /mi-club and each section of its menu (opened through the
 * menu, so sections added later are walked too) and the public routes again with her header.
 * Each screen is loaded once; `visit` is called on it and may resize the viewport.
 */
import type { Page } from 'playwright-core';

import { ANA, logIn, openSection } from './member';

/** The public routes that show the site frame (logged out and logged in). */
export const PUBLIC_ROUTES = [
  '/promociones',
  '/alianzas',
  '/preguntas-frecuentes',
  '/preguntas-login',
  '/terminos-y-condiciones',
  '/recuperar-contrasena',
  '/confirmar-correo',
  '/restaurar-correo',
  '/registro/verificar-correo',
  '/no-existe',
] as const;

export type Visit = (screen: string) => Promise<void>;

/** The name of a screen in reports and file names: "registro-paso-2", "mi-club-mis-datos". */
export function screenName(path: string, suffix = ''): string {
  const base = path.replace(/^\//, '').replace(/\//g, '-') || 'inicio';
  return suffix ? `${base}-${suffix}` : base;
}

/** The first heading, once the route's chunk and data are in (the spinner is gone). */
async function settled(page: Page) {
  await page.locator('h1').first().waitFor();
  await page
    .locator('.spinner--large')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
}

/** Modulo 11 with weights 2..7 from the right: "K" for 10, "0" for 11. */
function checkDigit(body: string): string {
  let sum = 0;
  let weight = 2;
  for (let i = body.length - 1; i >= 0; i -= 1) {
    sum += Number(body[i]) * weight;
    weight = weight === 7 ? 2 : weight + 1;
  }
  const result = 11 - (sum % 11);
  return result === 11 ? '0' : result === 10 ? 'K' : String(result);
}

/** A RUT no demo member has (bodies 30.000.000–39.999.999 but 33.333.333). */
function freshRut(): { body: string; typed: string } {
  let body = '33333333';
  while (body === '33333333') body = String(30_000_000 + Math.floor(Math.random() * 10_000_000));
  return { body, typed: `${body}${checkDigit(body)}` };
}

/** Logged out: /login, the public routes and the three steps of /registro (none completed). */
export async function tourLoggedOut(page: Page, baseUrl: string, visit: Visit) {
  await page.goto(`${baseUrl}/login`);
  await settled(page);
  await visit('login');

  await page.goto(`${baseUrl}/mi-club`);
  await settled(page);
  await visit('mi-club-sin-sesion');

  for (const path of PUBLIC_ROUTES) {
    await page.goto(`${baseUrl}${path}`);
    await settled(page);
    await visit(screenName(path));
  }

  const rut = freshRut();
  await page.goto(`${baseUrl}/registro`);
  await page.getByRole('heading', { level: 2, name: 'Paso 1 de 3: tu documento' }).waitFor();
  await visit('registro-paso-1');
  await page.getByLabel('RUT', { exact: true }).pressSequentially(rut.typed);
  await page.getByLabel('Número de documento', { exact: true }).fill(`1${rut.body.slice(0, 8)}`);
  await page.getByRole('button', { name: 'Continuar' }).click();
  await page.getByRole('heading', { level: 2, name: 'Paso 2 de 3: tus datos' }).waitFor();
  await visit('registro-paso-2');
  await page.getByLabel('Nombre', { exact: true }).fill('Nora');
  await page.getByLabel('Apellido paterno', { exact: true }).fill('Soto');
  await page.getByLabel('Celular', { exact: true }).fill('+56 9 8765 4321');
  await page.getByLabel('Fecha de nacimiento', { exact: true }).fill('1990-05-01');
  await page.getByLabel('Género', { exact: true }).selectOption({ label: 'Femenino' });
  await page.getByLabel('Correo electrónico', { exact: true }).fill(`nora.${rut.body}@example.cl`);
  await page.getByRole('button', { name: 'Continuar' }).click();
  await page.getByRole('heading', { level: 2, name: 'Paso 3 de 3: tu contraseña' }).waitFor();
  await visit('registro-paso-3');
}

/** The labels of Mi Cuenta's menu as the page shows them, "Cerrar sesión" left out. */
export async function accountSections(page: Page): Promise<string[]> {
  const labels = await page
    .getByRole('navigation', { name: 'Menú de mi cuenta' })
    .locator('a[data-menu-index]')
    .allTextContents();
  return labels.map((label) => label.trim());
}

/** Logs Ana in, then /mi-club, each section through the menu, and the public routes. */
export async function tourLoggedIn(page: Page, baseUrl: string, visit: Visit, email = 'ana@example.cl') {
  await logIn(page, baseUrl, { typed: ANA.typed, password: ANA.password, email });
  await page.getByTestId('balance-amount').waitFor();
  await visit('mi-club');
  const sections = await accountSections(page);
  for (const label of sections.slice(1)) {
    await openSection(page, label);
    await visit(screenName('/mi-club', slug(label)));
  }
  for (const path of PUBLIC_ROUTES) {
    await page.goto(`${baseUrl}${path}`);
    await settled(page);
    await visit(`${screenName(path)}-con-sesion`);
  }
}

function slug(label: string): string {
  return label
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
