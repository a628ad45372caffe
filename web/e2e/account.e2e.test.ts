/**
 * The account area against the standalone binary, in the order a member might use it: Mis Datos
 * (with the email confirmation link), Términos y Condiciones, Mis Movimientos, and last the
 * password change, which ends every session. One instance, one logged-in page for the first
 * three, few page loads.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import { accountMenu, ANA, ANA_EMAIL, dataLayer, logIn, openSection, screenshots } from './support/member';
import { recaptchaToken, startMiclub, waitForMail, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

const NEW_EMAIL = 'ana.e2e@example.cl';
const NEW_PASSWORD = 'una clave nueva bastante larga';
const MONTHS = [
  'Enero',
  'Febrero',
  'Marzo',
  'Abril',
  'Mayo',
  'Junio',
  'Julio',
  'Agosto',
  'Septiembre',
  'Octubre',
  'Noviembre',
  'Diciembre',
];

let miclub: Miclub;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** Where Ana's codes go: the last email she confirmed. */
let anaEmail = ANA_EMAIL;
let anaName = ANA.name;

beforeAll(async () => {
  miclub = await startMiclub({ APP_GATEWAY__FLAGS__CHANGE_PASSWORD_ENABLE: 'true' });
  browser = await launchBrowser();
  context = await browser.newContext(DESKTOP);
  page = await context.newPage();
  await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: anaEmail });
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await miclub?.stop();
});

const menu = (label: string) => accountMenu(page, label);

const open = (label: string) => openSection(page, label);

/** The calendar month it is now in Santiago, and the one before. */
function chileMonths(): { current: { year: number; month: number }; previous: { year: number; month: number } } {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Santiago', year: 'numeric', month: 'numeric' }).formatToParts(
    new Date(),
  );
  const year = Number(parts.find((p) => p.type === 'year')?.value);
  const month = Number(parts.find((p) => p.type === 'month')?.value);
  const previous = month === 1 ? { year: year - 1, month: 12 } : { year, month: month - 1 };
  return { current: { year, month }, previous };
}

async function chooseMonth(target: { year: number; month: number }) {
  await page.getByLabel('Año', { exact: true }).selectOption(String(target.year));
  await page.getByLabel('Mes', { exact: true }).selectOption({ label: MONTHS[target.month - 1] ?? '' });
}

describe(`the account area against ${PORTAL_UNDER_TEST}`, () => {
  it('edits Mis Datos, keeps the changes after a reload, and confirms a new email by its link', async () => {
    await open('Mis Datos');
    const email = page.getByLabel('Correo electrónico', { exact: true });
    await email.waitFor();
    expect(await page.getByTestId('profile-document').textContent()).toBe(ANA.user);
    expect(await page.getByTestId('email-status').textContent()).toBe('Confirmado');

    // A phone the gateway would refuse is refused here first, with its message under the field.
    const phone = page.getByLabel('Celular (opcional)');
    await phone.fill('123');
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    expect(await phone.getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Ingresa un celular chileno válido, por ejemplo +56 9 1234 5678.').waitFor();

    await phone.fill('9 8765 4321');
    await page.getByLabel('Nombre', { exact: true }).fill('Ana María');
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByText('Tus datos fueron actualizados.').waitFor();
    anaName = 'Ana María';

    await page.reload();
    await page.getByRole('heading', { level: 1, name: `Hola, ${anaName}` }).waitFor();
    await open('Mis Datos');
    expect(await page.getByLabel('Nombre', { exact: true }).inputValue()).toBe('Ana María');
    expect(await page.getByLabel('Celular (opcional)').inputValue()).toBe('+56987654321');

    await email.fill(NEW_EMAIL);
    // Step-up: a new email is sent with the current password, asked for in place.
    await page
      .getByRole('form', { name: 'Tus datos personales' })
      .getByLabel('Contraseña actual', { exact: true })
      .fill(ANA.password);
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByText(`Te enviamos un enlace de confirmación a ${NEW_EMAIL}`).waitFor();
    expect(await page.getByTestId('email-status').textContent()).toBe('Sin confirmar');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'mis-datos');

    const mail = await waitForMail(miclub.baseUrl, (entry) => entry.to === NEW_EMAIL);
    const link = /\/confirmar-correo\?token=[^\s"<>]+/.exec(mail?.body ?? '')?.[0];
    expect(link, `a confirmation link in ${JSON.stringify(mail)}`).toBeTruthy();
    await page.goto(`${miclub.baseUrl}${link}`);
    const confirmed = page.getByText(/Confirmamos tu correo/);
    await confirmed.waitFor();
    expect(await confirmed.textContent()).toMatch(/Confirmamos tu correo a\*+@example\.cl\./);
    await screenshots(page, 'confirmar-correo');
    anaEmail = NEW_EMAIL;

    await page.getByRole('link', { name: 'Ir a Mi Club' }).click();
    await page.getByRole('heading', { level: 1, name: `Hola, ${anaName}` }).waitFor();
    await open('Mis Datos');
    await page.getByTestId('email-status').getByText('Confirmado').waitFor();
    expect(await email.inputValue()).toBe(NEW_EMAIL);
  });

  it('accepts and rejects the terms: a modal before rejecting, then back to Mi Cuenta', async () => {
    await open('Términos y Condiciones');
    const terms = (await (await context.request.get(`${miclub.baseUrl}/api/terms-and-conditions`)).json()) as {
      title: string;
      version: string;
    };
    await page.getByRole('heading', { level: 3, name: terms.title }).waitFor();
    expect(await page.getByTestId('terms-version').textContent()).toContain(`Versión ${terms.version}`);

    await page.getByRole('button', { name: 'Aceptar', exact: true }).click();
    await page.getByText('Aceptaste los términos y condiciones.', { exact: true }).waitFor();
    expect(await menu('Mi Cuenta').getAttribute('aria-current')).toBe('page');

    await open('Términos y Condiciones');
    expect(await page.getByTestId('terms-decision').textContent()).toMatch(/^Aceptaste los términos y condiciones el /);
    await page.getByRole('button', { name: 'Rechazar', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: '¿Quieres rechazar los términos y condiciones?' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('Puedes volver a aceptarlos cuando quieras');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'terminos-rechazo');
    await dialog.getByRole('button', { name: 'Sí, rechazar' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(/^Rechazaste los términos y condiciones\. Puedes aceptarlos/).waitFor();
    expect(await menu('Mi Cuenta').getAttribute('aria-current')).toBe('page');

    const profile = (await (await context.request.get(`${miclub.baseUrl}/api/profile`)).json()) as {
      terms_agreement: { agreement: string };
    };
    expect(profile.terms_agreement.agreement).toBe('rejected');
    const events = (await dataLayer(page)).map((entry) => entry.event);
    expect(events).toContain('terminos_y_condiciones_aceptado');
    expect(events).toContain('terminos_y_condiciones_rechazado');

    // The public page: the footer link (client-side, focus on its heading) and a visitor's load.
    await page.getByRole('contentinfo').getByRole('link', { name: 'Términos y condiciones' }).click();
    const heading = page.getByRole('heading', { level: 1, name: 'Términos y condiciones' });
    await heading.waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    const visitor = await browser.newContext({ locale: 'es-CL' });
    try {
      const anonymous = await visitor.newPage();
      await anonymous.goto(`${miclub.baseUrl}/terminos-y-condiciones`);
      await anonymous.getByRole('heading', { level: 2, name: terms.title }).waitFor();
      expect(await anonymous.getByRole('button', { name: 'Iniciar sesión' }).count()).toBe(1);
    } finally {
      await visitor.close();
    }
    await page.getByRole('banner').getByRole('link', { name: new RegExp(`Hola, ${anaName}`) }).click();
    await page.getByRole('heading', { level: 1, name: `Hola, ${anaName}` }).waitFor();
  });

  it('pages through the movements of a month and shows an empty one', async () => {
    const { current, previous } = chileMonths();
    await open('Mis Movimientos');
    expect(await page.getByLabel('Mes', { exact: true }).inputValue()).toBe(String(current.month));
    expect(await page.getByLabel('Año', { exact: true }).inputValue()).toBe(String(current.year));
    await page.getByTestId('movement').first().waitFor();
    expect(await page.getByTestId('movement').count()).toBeGreaterThanOrEqual(1);

    await chooseMonth(previous);
    await page.getByText('Página 1 de 2', { exact: true }).waitFor();
    expect(await page.getByTestId('movement').count()).toBe(10);
    const amounts = await page.locator('.movement__amount').allTextContents();
    for (const amount of amounts) expect(amount).toMatch(/^-?\$\d{1,3}(\.\d{3})*$/);
    await screenshots(page, 'mis-movimientos');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByRole('button', { name: 'Siguiente' }).click();
    await page.getByText('Página 2 de 2', { exact: true }).waitFor();
    expect(await page.getByTestId('movement').count()).toBe(3);
    expect(await dataLayer(page)).toContainEqual(
      expect.objectContaining({ event: 'historial_cambio_fecha', mes: previous.month, anio: previous.year }),
    );

    // An earlier month of the 24 offered without movements, found through the API.
    let empty: { year: number; month: number } | null = null;
    for (let back = 2; back < 24 && !empty; back += 1) {
      const index = current.year * 12 + current.month - 1 - back;
      const candidate = { year: Math.floor(index / 12), month: (index % 12) + 1 };
      const answer = await context.request.get(
        `${miclub.baseUrl}/api/movements?year=${candidate.year}&month=${candidate.month}&page=1`,
      );
      if (((await answer.json()) as { totalCount: number }).totalCount === 0) empty = candidate;
    }
    expect(empty, 'an empty month among the earlier ones').not.toBeNull();
    if (empty) await chooseMonth(empty);
    await page.getByText('No tienes movimientos en este mes.').waitFor();
    expect(await page.getByTestId('movement').count()).toBe(0);
  });

  it('changes the password, logs out, and logs in with the new one', async () => {
    await open('Mis Datos');
    await page.getByRole('heading', { level: 3, name: 'Cambiar contraseña' }).waitFor();
    const current = page.getByLabel('Contraseña actual', { exact: true });
    const next = page.getByLabel('Nueva contraseña', { exact: true });

    // A wrong current password is a 422 under its field, not a logout.
    await current.fill('NoEsMiClave1');
    await next.fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
    await page.getByText('La contraseña actual no es correcta.').waitFor();
    expect(await current.getAttribute('aria-invalid')).toBe('true');
    expect(page.url()).toBe(`${miclub.baseUrl}/mi-club/mis-datos`);
    expect((await context.cookies()).find((c) => c.name === 'is-logged')?.value).toBe('true');

    await current.fill(ANA.password);
    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cambiaste tu contraseña' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('debes iniciar sesión nuevamente');
    await dialog.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.waitForURL('**/login');
    await page.getByRole('heading', { level: 1, name: 'Inicia sesión' }).waitFor();
    expect((await context.cookies()).find((c) => c.name === 'is-logged')).toBeUndefined();

    const oldPassword = await context.request.post(`${miclub.baseUrl}/api/login`, {
      headers: { 'x-miclub-csrf': '1', 'recaptcha-token': recaptchaToken('login') },
      data: { user: ANA.user, password: ANA.password },
    });
    expect(oldPassword.status()).toBe(401);

    await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: NEW_PASSWORD, email: anaEmail }, { navigate: false });
    await page.getByRole('heading', { level: 1, name: `Hola, ${anaName}` }).waitFor();
  });
});
