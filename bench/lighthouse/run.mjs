// Runs Lighthouse (mobile emulation, its default config) on the portal's public routes and on
// /mi-club and /mi-club/tarjeta as Ana, in Debian's Chromium driven by puppeteer-core, and
// prints one row per route: the four category scores, CLS and LCP (the median run by
// performance when BENCH_RUNS > 1), then every audit that did not pass, so the table says what
// to fix. Lighthouse 12 dropped its PWA category; the card's installability is asked of
// Chromium itself (Page.getInstallabilityErrors, what that category's installable-manifest
// audit read) once its service worker is active, and printed last.
//
//   node run.mjs <base url>        (bench/lighthouse.sh starts the binary and calls this)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';

const base = process.argv[2];
if (!base) throw new Error('usage: node run.mjs <base url>');
const runs = Number(process.env.BENCH_RUNS ?? '3');
const reportDir = process.env.BENCH_REPORT_DIR;
const chrome = process.env.CHROME_PATH ?? '/usr/bin/chromium';
const allRoutes = ['/login', '/mi-club', '/mi-club/tarjeta', '/promociones', '/alianzas', '/registro'];
// BENCH_ROUTES="/mi-club /login" measures only those (an A/B of one page in less time).
const routes = process.env.BENCH_ROUTES ? process.env.BENCH_ROUTES.split(/\s+/).filter(Boolean) : allRoutes;
for (const route of routes) if (!allRoutes.includes(route)) throw new Error(`BENCH_ROUTES: ${route} is not measured here`);
const categories = ['performance', 'accessibility', 'best-practices', 'seo'];

/** Cookies of a Set-Cookie list, as puppeteer wants them (host-only, on the portal's host). */
function parseCookies(response) {
  const host = new URL(base).hostname;
  return response.headers.getSetCookie().map((line) => {
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    const at = pair.indexOf('=');
    const cookie = { name: pair.slice(0, at), value: pair.slice(at + 1), domain: host, path: '/' };
    for (const attribute of attributes) {
      const [key, value] = attribute.split('=');
      const name = key.toLowerCase();
      if (name === 'path') cookie.path = value;
      else if (name === 'httponly') cookie.httpOnly = true;
      else if (name === 'secure') cookie.secure = true;
      else if (name === 'samesite') cookie.sameSite = value;
      else if (name === 'max-age') cookie.expires = Math.floor(Date.now() / 1000) + Number(value);
    }
    return cookie;
  });
}

/** Ana's session cookies through the REST steps a browser takes (password, then mailed code). */
async function loginAna() {
  const json = { 'content-type': 'application/json', 'x-miclub-csrf': '1' };
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { ...json, 'recaptcha-token': 'local:login' },
    body: JSON.stringify({ user: '11.111.111-1', password: 'MiClub2026!' }),
  });
  if (!login.ok) throw new Error(`login answered ${login.status}: ${await login.text()}`);
  const challenge = parseCookies(login)
    .map((c) => `${c.name}=${c.value}`)
    .join('; ');
  const mailbox = await (await fetch(`${base}/api/dev/mailbox`)).json();
  const { code } = mailbox.find((message) => message.to === 'ana@example.cl');
  const otp = await fetch(`${base}/api/validate-otp`, {
    method: 'POST',
    headers: { ...json, cookie: challenge },
    body: JSON.stringify({ otp: code }),
  });
  if (!otp.ok) throw new Error(`validate-otp answered ${otp.status}: ${await otp.text()}`);
  return parseCookies(otp).filter((c) => c.value !== '');
}

function summary(lhr) {
  const score = (id) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
  const failing = [];
  for (const id of categories) {
    for (const ref of lhr.categories[id]?.auditRefs ?? []) {
      const audit = lhr.audits[ref.id];
      if (ref.weight > 0 && audit.score !== null && audit.score < 0.9) {
        failing.push(`${id}: ${ref.id} (${audit.displayValue ?? audit.score})`);
      }
    }
  }
  return {
    perf: score('performance'),
    a11y: score('accessibility'),
    bp: score('best-practices'),
    seo: score('seo'),
    cls: lhr.audits['cumulative-layout-shift'].numericValue,
    lcp: lhr.audits['largest-contentful-paint'].numericValue,
    tbt: lhr.audits['total-blocking-time'].numericValue,
    benchmarkIndex: lhr.environment.benchmarkIndex,
    finalUrl: lhr.finalDisplayedUrl,
    failing,
  };
}

const browser = await puppeteer.launch({
  executablePath: chrome,
  headless: true,
  args: ['--no-sandbox', '--disable-dev-shm-usage'],
});
// Lighthouse's mobile preset slows the CPU 4× on the assumption of a fast desktop host
// (benchmarkIndex about 1500). On a slower or busy host that emulates a far slower phone than
// intended, so Lighthouse's docs (docs/throttling.md, "CPU throttling") advise calibrating the
// multiplier to the host's benchmarkIndex; BENCH_CPU=calibrated does that with the published
// calculator (lighthouse-cpu-throttling-calculator), from the index of a first, unrecorded run.
// The default stays Lighthouse's own 4×.
const cpuMode = process.env.BENCH_CPU ?? 'default';
if (!['default', 'calibrated'].includes(cpuMode)) throw new Error('BENCH_CPU is default or calibrated');

/** The slowdown that makes this host emulate Lighthouse's reference phone. */
function calibratedMultiplier(benchmarkIndex) {
  if (benchmarkIndex >= 1300) return 3 + (benchmarkIndex - 1300) / 233;
  if (benchmarkIndex >= 800) return 2 + (benchmarkIndex - 800) / 500;
  return Math.max(1, 1 + (benchmarkIndex - 150) / 650);
}

/** Lighthouse's mobile network preset (mobileSlow4G) with the chosen CPU slowdown. */
const throttlingWith = (cpuSlowdownMultiplier) => ({
  rttMs: 150,
  throughputKbps: 1638.4,
  requestLatencyMs: 562.5,
  downloadThroughputKbps: 1474.56,
  uploadThroughputKbps: 675,
  cpuSlowdownMultiplier,
});

/** Chromium's own installability verdict on the card page, once its service worker controls it. */
async function installabilityOfTheCard(context) {
  const page = await context.newPage();
  try {
    await page.goto(`${base}/mi-club/tarjeta`, { waitUntil: 'networkidle0' });
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const session = await page.createCDPSession();
    const { installabilityErrors } = await session.send('Page.getInstallabilityErrors');
    return installabilityErrors.map((e) => e.errorId);
  } finally {
    await page.close();
  }
}

const rows = [];
let installability;
let multiplier = 4;
try {
  // Ana's cookies live in a context of their own: logged in, /login would send her to /mi-club.
  const visitor = await browser.createBrowserContext();
  const member = await browser.createBrowserContext();
  await member.setCookie(...(await loginAna()));
  if (cpuMode === 'calibrated') {
    const page = await visitor.newPage();
    const probe = await lighthouse(`${base}/login`, { output: 'json', logLevel: 'error', onlyCategories: ['performance'] }, undefined, page);
    await page.close();
    multiplier = calibratedMultiplier(probe.lhr.environment.benchmarkIndex);
  }
  if (routes.includes('/mi-club/tarjeta')) {
    // Chromium answers "in-incognito" for any context but the default one.
    const ordinary = browser.defaultBrowserContext();
    await ordinary.setCookie(...(await loginAna()));
    installability = await installabilityOfTheCard(ordinary);
  }
  for (const route of routes) {
    const measured = [];
    for (let run = 0; run < runs; run += 1) {
      const page = await (route.startsWith('/mi-club') ? member : visitor).newPage();
      const result = await lighthouse(
        `${base}${route}`,
        { output: 'json', logLevel: 'error', onlyCategories: categories, throttling: throttlingWith(multiplier) },
        undefined,
        page,
      );
      await page.close();
      const row = summary(result.lhr);
      if (new URL(row.finalUrl).pathname !== route) {
        throw new Error(`${route} ended on ${row.finalUrl}: not the page meant to be measured`);
      }
      if (reportDir) {
        mkdirSync(reportDir, { recursive: true });
        writeFileSync(join(reportDir, `${route.slice(1).replaceAll('/', '_')}-${run + 1}.json`), result.report);
      }
      measured.push(row);
    }
    measured.sort((a, b) => a.perf - b.perf);
    rows.push({ route, runs: measured, median: measured[Math.floor(measured.length / 2)] });
  }
} finally {
  await browser.close();
}

const pad = (value, width) => String(value).padStart(width);
console.log(`Lighthouse ${(await import('lighthouse/package.json', { with: { type: 'json' } })).default.version}, mobile emulation, CPU ${cpuMode} (${multiplier.toFixed(2)}× slowdown), ${runs} run(s) per route (median by performance; perf range in brackets; bench = the host's benchmarkIndex in that run)`);
console.log('route            perf        a11y   bp  seo     CLS   LCP ms  TBT ms  bench');
for (const { route, runs: all, median } of rows) {
  const range = all.length > 1 ? `[${all[0].perf}-${all[all.length - 1].perf}]` : '';
  console.log(
    `${route.padEnd(16)} ${pad(median.perf, 3)} ${range.padEnd(8)} ${pad(median.a11y, 3)} ${pad(median.bp, 4)} ${pad(median.seo, 4)} ${pad(median.cls.toFixed(3), 7)} ${pad(Math.round(median.lcp), 8)} ${pad(Math.round(median.tbt), 7)} ${pad(Math.round(median.benchmarkIndex), 6)}`,
  );
}
for (const { route, median } of rows) {
  for (const line of median.failing) console.log(`  ${route}: ${line}`);
}
if (installability) {
  console.log(
    installability.length === 0
      ? 'installable (/mi-club/tarjeta, Chromium): yes'
      : `installable (/mi-club/tarjeta, Chromium): no: ${installability.join(', ')}`,
  );
}
