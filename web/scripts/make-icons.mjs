// Draws the installable app's PNG icons (public/icons) from the club's mark (public/favicon.svg)
// with Debian's Chromium: run `node scripts/make-icons.mjs` after changing the mark, and commit
// the PNGs. "any" icons are the mark itself; "maskable" ones put it inside the central 80 % a
// launcher may crop to a circle, on the mark's own orange.
import { readFileSync } from 'node:fs';

import { chromium } from 'playwright-core';

const mark = readFileSync(new URL('../public/favicon.svg', import.meta.url), 'utf8');
const ORANGE = '#ff8a3d';
const icons = [
  { file: 'icon-192.png', size: 192, maskable: false },
  { file: 'icon-512.png', size: 512, maskable: false },
  { file: 'maskable-512.png', size: 512, maskable: true },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu'],
});
try {
  for (const { file, size, maskable } of icons) {
    const page = await browser.newPage({ viewport: { width: size, height: size } });
    const inner = maskable ? Math.round(size * 0.6) : size;
    const svg = mark.replace(/width="\d+" height="\d+"/, `width="${inner}" height="${inner}"`);
    await page.setContent(
      `<html><body style="margin:0;display:grid;place-items:center;width:${size}px;height:${size}px;` +
        `background:${maskable ? ORANGE : 'transparent'}">${svg}</body></html>`,
    );
    await page.screenshot({ path: new URL(`../public/icons/${file}`, import.meta.url).pathname, omitBackground: !maskable });
    await page.close();
  }
} finally {
  await browser.close();
}
