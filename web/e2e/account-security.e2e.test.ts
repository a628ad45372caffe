/**
 * Account security in the browser (issue #16) against the standalone binary, with Ana: no personal
 * data in browser storage (her name comes back from the API after a reload), the notice on /login
 * after a forced logout (cookies gone, or the session ended server-side) and none after a logout
 * she asks for, the current password asked for in place before an email change and an
 * unsubscribe, and the link that restores a changed email. Each test has its own browser context;
 * the ones that change Ana's data come last.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { capitalizeFirst } from '../src/lib/errors';

import { seriousViolations } from './support/a11y';
import { DESKTOP, launchBrowser } from './support/browser';
import {
  accountMenu,
  ANA,
  ANA_EMAIL,
  apiResponse,
  logIn,
  openSection,
  refusedAndSentToLogin,
  screenshots,
  SESSION_EXPIRED,
} from './support/member';
import { startMiclub, waitForMail, type Miclub } from './support/miclub';
import { PORTAL_UNDER_TEST } from './support/paths';

/** What must never be in localStorage or sessionStorage: Ana's name, email and RUT in every form. */
const ANA_PERSONAL = ['ana', 'gonzález', 'gonzalez', ANA_EMAIL, ANA.user, ANA.typed, '11111111-1', '11111111'];

let miclub: Miclub;
let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  // Ana logs in a dozen times in this file: more codes than auth's daily cap per member (10).
  miclub = await startMiclub({ APP_AUTH__POLICY__DAILY_SEND_CAP: '30' });
  browser = await launchBrowser();
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await miclub?.stop();
});

async function anaLoggedIn(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(DESKTOP);
  contexts.push(context);
  const page = await context.newPage();
  await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL });
  await page.getByRole('heading', { level: 1, name: `Hola, ${ANA.name}` }).waitFor();
  return { context, page };
}

/**
 * Ends the session of `context` on the server while its browser keeps the cookies: another
 * context holding a copy of them logs out, as a member would on a second tab or device sharing them.
 */
async function revokeElsewhere(context: BrowserContext) {
  const elsewhere = await browser.newContext({ locale: 'es-CL' });
  try {
    await elsewhere.addCookies(await context.cookies());
    const answer = await elsewhere.request.post(`${miclub.baseUrl}/api/logout`, { headers: { 'x-miclub-csrf': '1' } });
    expect(answer.status()).toBe(204);
  } finally {
    await elsewhere.close();
  }
}

/** Every key and value of localStorage and sessionStorage, lower-cased. */
async function storedText(page: Page): Promise<string> {
  const text = await page.evaluate(() => {
    const dump = (storage: Storage) =>
      Array.from({ length: storage.length }, (_, i) => {
        const key = storage.key(i) ?? '';
        return `${key}=${storage.getItem(key) ?? ''}`;
      });
    return [...dump(window.localStorage), ...dump(window.sessionStorage)].join('\n');
  });
  return text.toLocaleLowerCase('es-CL');
}

describe(`account security in the browser, against ${PORTAL_UNDER_TEST}`, () => {
  it("keeps none of Ana's name, email or RUT in browser storage, and shows her name again after a reload", async () => {
    const { page } = await anaLoggedIn();
    await openSection(page, 'Mis Datos');
    expect(await page.getByLabel('Correo electrónico', { exact: true }).inputValue()).toBe(ANA_EMAIL);
    await openSection(page, 'Mis Movimientos');
    for (const personal of ANA_PERSONAL) expect(await storedText(page)).not.toContain(personal.toLocaleLowerCase('es-CL'));

    await page.reload();
    await page.getByRole('heading', { level: 1, name: `Hola, ${ANA.name}` }).waitFor();
    await page.getByRole('banner').getByRole('link', { name: `Hola, ${ANA.name}` }).waitFor();
    const stored = await storedText(page);
    for (const personal of ANA_PERSONAL) expect(stored).not.toContain(personal.toLocaleLowerCase('es-CL'));
    // Ana has missions: the menu entry survives the reload through a bare flag, nothing else.
    await accountMenu(page, 'Misiones').waitFor();
    expect(stored).toBe('miclub:has-missions=true');

    await page.getByRole('button', { name: 'Cerrar sesión' }).click();
    await page.waitForURL('**/login');
    expect(await storedText(page)).toBe('');
  });

  it('says on /login that the session expired once its cookies are gone, and the back button shows nothing of hers', async () => {
    const { context, page } = await anaLoggedIn();
    await page.goto(`${miclub.baseUrl}/promociones`);
    await page.getByRole('banner').getByRole('link', { name: `Hola, ${ANA.name}` }).click();
    await page.getByRole('heading', { level: 1, name: `Hola, ${ANA.name}` }).waitFor();
    await openSection(page, 'Mis Datos');
    await page.getByLabel('Correo electrónico', { exact: true }).waitFor();

    // A stolen or lost session: the browser no longer holds its cookies; the next member request answers 401.
    await context.clearCookies({ name: /mc_(session|refresh)$/ });
    await refusedAndSentToLogin(page);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'sesion-expirada');

    // Back: the page before is Mis Datos, whose address needs a session again: it sends to /login
    // (and back there after logging in); nothing of Ana's is left to show.
    await page.goBack();
    await page.waitForURL(
      (at) => at.pathname === '/login' && at.searchParams.get('redirect') === '/mi-club/mis-datos',
    );
    await page.getByRole('heading', { level: 1, name: 'Inicia sesión' }).waitFor();
    const body = (await page.locator('body').textContent()) ?? '';
    expect(body).not.toContain(`Hola, ${ANA.name}`);
    expect(body).not.toContain(ANA_EMAIL);
    await page.goto(`${miclub.baseUrl}/mi-club`);
    await page.waitForURL('**/login**');
  });

  it('says so as well when the session was ended server-side', async () => {
    const { page } = await anaLoggedIn();
    const status = await page.evaluate(async () => {
      const answer = await fetch('/api/logout', { method: 'POST', headers: { 'x-miclub-csrf': '1' } });
      return answer.status;
    });
    expect(status).toBe(204);
    // The movements are read when their section opens: the first member request after the logout.
    await accountMenu(page, 'Mis Movimientos').click();
    await page.waitForURL('**/login**');
    await page.getByRole('status').filter({ hasText: SESSION_EXPIRED }).waitFor();
  });

  it('says so after a reload of Mi Cuenta when the session was revoked elsewhere (its data answers 401)', async () => {
    const { context, page } = await anaLoggedIn();
    await revokeElsewhere(context);
    // The access cookie is minutes old (session-fresh): the reloaded page asks for Ana's data at
    // once, without a renewal, and the gateway refuses the revoked session there.
    const refused = page.waitForResponse((r) => new URL(r.url()).pathname.startsWith('/api/') && r.status() === 401);
    await page.reload();
    expect(['/api/profile', '/api/balance']).toContain(new URL((await refused).url()).pathname);
    await page.waitForURL('**/login**');
    const notice = page.getByRole('status').filter({ hasText: SESSION_EXPIRED });
    await notice.waitFor();
    expect((await notice.textContent())?.trim()).toBe(SESSION_EXPIRED);
    expect((await context.cookies()).filter((c) => ['is-logged', 'session-fresh'].includes(c.name))).toEqual([]);
    expect(await storedText(page)).toBe('');
    expect((await page.locator('body').textContent()) ?? '').not.toContain(`Hola, ${ANA.name}`);
  });

  it('sends a public page to /login on a 401 too, and logging in again comes back to it', async () => {
    const { context, page } = await anaLoggedIn();
    await page.goto(`${miclub.baseUrl}/promociones`);
    await page.getByRole('banner').getByRole('link', { name: `Hola, ${ANA.name}` }).waitFor();
    await revokeElsewhere(context);
    await page.reload();
    await page.waitForURL('**/login**');
    await page.getByRole('status').filter({ hasText: SESSION_EXPIRED }).waitFor();

    await logIn(page, miclub.baseUrl, { typed: ANA.typed, password: ANA.password, email: ANA_EMAIL }, { navigate: false, landing: '**/promociones' });
    await page.getByRole('heading', { level: 1, name: 'Promociones' }).waitFor();
    await page.getByRole('banner').getByRole('link', { name: `Hola, ${ANA.name}` }).waitFor();
  });

  it('says nothing about an expiry after a logout Ana asks for', async () => {
    const { page } = await anaLoggedIn();
    const loggedOut = apiResponse(page, '/api/logout');
    await page.getByRole('button', { name: 'Cerrar sesión' }).click();
    expect((await loggedOut).status()).toBe(204);
    await page.waitForURL('**/login');
    await page.getByRole('heading', { level: 1, name: 'Inicia sesión' }).waitFor();
    expect(await page.getByText(SESSION_EXPIRED).count()).toBe(0);
  });

  it('asks for the current password in place as soon as the email in Mis Datos differs', async () => {
    const { page } = await anaLoggedIn();
    await openSection(page, 'Mis Datos');
    const form = page.getByRole('form', { name: 'Tus datos personales' });
    const password = form.getByLabel('Contraseña actual', { exact: true });
    expect(await password.count()).toBe(0);
    await form.getByLabel('Correo electrónico', { exact: true }).fill('ana.otra@example.cl');
    await password.waitFor();
    expect(await password.getAttribute('type')).toBe('password');
    expect(await password.getAttribute('autocomplete')).toBe('current-password');
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByText('Ingresa tu contraseña actual para cambiar tu correo.').waitFor();
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshots(page, 'mis-datos-contrasena-actual');
    // Back to the current email: no password asked for, nothing sent.
    await form.getByLabel('Correo electrónico', { exact: true }).fill(ANA_EMAIL);
    expect(await password.count()).toBe(0);
  });

  // The tests below need the step-up and the restore link of the services (issue #16).

  it('refuses a new email with a wrong current password (422 under the field) and changes nothing', async () => {
    const { context, page } = await anaLoggedIn();
    await openSection(page, 'Mis Datos');
    const form = page.getByRole('form', { name: 'Tus datos personales' });
    await form.getByLabel('Correo electrónico', { exact: true }).fill('ana.otra@example.cl');
    const password = form.getByLabel('Contraseña actual', { exact: true });
    await password.fill('NoEsMiClave1');
    const answer = apiResponse(page, '/api/profile', 'PUT');
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    const refused = await answer;
    expect(refused.status()).toBe(422);
    const body = (await refused.json()) as { code: string; field: string; message: string };
    expect(body).toMatchObject({ code: 'ERR_WRONG_PASSWORD', field: 'currentPassword' });
    await page.getByText(capitalizeFirst(body.message)).waitFor();
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    expect(page.url()).toBe(`${miclub.baseUrl}/mi-club/mis-datos`);
    const profile = (await (await context.request.get(`${miclub.baseUrl}/api/profile`)).json()) as { email: string };
    expect(profile.email).toBe(ANA_EMAIL);
  });

  it('refuses step 1 of the unsubscribe with a wrong current password, under its field', async () => {
    const { page } = await anaLoggedIn();
    await openSection(page, 'Mis Datos');
    await page.getByRole('button', { name: 'Darme de baja de Mi Club' }).click();
    await page.getByRole('heading', { level: 3, name: 'Paso 1 de 2: confirma que eres tú' }).waitFor();
    await page.getByLabel('RUT', { exact: true }).pressSequentially(ANA.typed);
    await page.getByLabel('Correo electrónico', { exact: true }).fill(ANA_EMAIL);
    const password = page.getByLabel('Contraseña actual', { exact: true });
    await password.fill('NoEsMiClave1');
    const answer = apiResponse(page, '/api/unsubscribe/validate');
    await page.getByRole('button', { name: 'Continuar' }).click();
    const refused = await answer;
    expect(refused.status()).toBe(422);
    expect(((await refused.json()) as { code: string }).code).toBe('ERR_WRONG_PASSWORD');
    await page.getByText('La contraseña actual no es correcta.').waitFor();
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    await page.getByRole('heading', { level: 3, name: 'Paso 1 de 2: confirma que eres tú' }).waitFor();
  });

  it("shows the gateway's message on /restaurar-correo for a link that is not valid", async () => {
    const context = await browser.newContext({ locale: 'es-CL' });
    contexts.push(context);
    const page = await context.newPage();
    const answer = apiResponse(page, '/api/profile/email/restore');
    await page.goto(`${miclub.baseUrl}/restaurar-correo?token=no-existe`);
    const refused = await answer;
    expect(refused.status()).toBe(404);
    const body = (await refused.json()) as { code: string; message: string };
    expect(body.code).toBe('ERR_CONFIRMATION_INVALID');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect((await alert.textContent())?.trim()).toBe(capitalizeFirst(body.message));
    expect(await page.getByRole('link', { name: 'Iniciar sesión', exact: true }).getAttribute('href')).toBe('/login');
  });

  it('changes the email with the password, then the link mailed to the old address restores it and ends every session', async () => {
    const newEmail = 'ana.nueva@example.cl';
    const { context, page } = await anaLoggedIn();
    await openSection(page, 'Mis Datos');
    const form = page.getByRole('form', { name: 'Tus datos personales' });
    await form.getByLabel('Correo electrónico', { exact: true }).fill(newEmail);
    await form.getByLabel('Contraseña actual', { exact: true }).fill(ANA.password);
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByText(`Te enviamos un enlace de confirmación a ${newEmail}`).waitFor();

    const confirmation = await waitForMail(miclub.baseUrl, (entry) => entry.to === newEmail);
    const confirmLink = /\/confirmar-correo\?token=[^\s"<>]+/.exec(confirmation?.body ?? '')?.[0];
    expect(confirmLink, `a confirmation link in ${JSON.stringify(confirmation)}`).toBeTruthy();
    await page.goto(`${miclub.baseUrl}${confirmLink}`);
    await page.getByText(/Confirmamos tu correo/).waitFor();

    // Whoever changed the address cannot leave the club while the old one may still restore it:
    // leaving would erase that way back. The refusal says from when.
    await page.goto(`${miclub.baseUrl}/mi-club/mis-datos`);
    await page.getByRole('heading', { level: 2, name: 'Mis Datos', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Darme de baja de Mi Club' }).click();
    await page.getByLabel('RUT', { exact: true }).pressSequentially(ANA.typed);
    await page.getByLabel('Correo electrónico', { exact: true }).fill(newEmail);
    await page.getByLabel('Contraseña actual', { exact: true }).fill(ANA.password);
    const coolingOff = apiResponse(page, '/api/unsubscribe/validate');
    await page.getByRole('button', { name: 'Continuar' }).click();
    const refusedLeaving = await coolingOff;
    expect(refusedLeaving.status()).toBe(409);
    expect(((await refusedLeaving.json()) as { code: string }).code).toBe('ERR_EMAIL_CHANGED_RECENTLY');
    await page
      .getByRole('alert')
      .filter({ hasText: /Cambiaste tu correo hace poco\. Por seguridad, podrás darte de baja desde el .+ \(hora de Chile\)\./ })
      .waitFor();
    await page.getByRole('heading', { level: 3, name: 'Paso 1 de 2: confirma que eres tú' }).waitFor();

    // The notice to the previous address, with its restore link (and no code or secret).
    const notice = await waitForMail(
      miclub.baseUrl,
      (entry) => entry.to === ANA_EMAIL && entry.body.includes('/restaurar-correo?token='),
    );
    const restoreLink = /\/restaurar-correo\?token=[^\s"<>]+/.exec(notice?.body ?? '')?.[0];
    expect(restoreLink, 'a restore link mailed to the previous address').toBeTruthy();

    // Ana opens it from her old mailbox, in another browser without a session.
    const elsewhere = await browser.newContext({ locale: 'es-CL' });
    contexts.push(elsewhere);
    const other = await elsewhere.newPage();
    await other.goto(`${miclub.baseUrl}${restoreLink}`);
    const restored = other.getByRole('status').filter({ hasText: 'Restauramos tu correo' });
    await restored.waitFor();
    expect(await restored.textContent()).toMatch(
      /^Restauramos tu correo \S+ y cerramos todas las sesiones de tu cuenta\. Inicia sesión y cambia tu contraseña\.$/,
    );
    expect(await other.getByRole('link', { name: 'Iniciar sesión', exact: true }).getAttribute('href')).toBe('/login');
    expect(await seriousViolations(other)).toEqual([]);
    await screenshots(other, 'restaurar-correo');

    // Whoever held the session is out.
    expect((await context.request.get(`${miclub.baseUrl}/api/profile`)).status()).toBe(401);
  });
});
