/** Debian's Chromium through playwright-core, with the flags that work on these machines. */
import { chromium, type Browser } from 'playwright-core';

import { stubRecaptcha } from './distributed';
import { CHROMIUM_PATH, TOPOLOGY } from './paths';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The browser context most files test in: a desktop window, Chilean Spanish. */
export const DESKTOP = { viewport: { width: 1280, height: 900 }, locale: 'es-CL' } as const;

export async function launchBrowser(): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
  if (TOPOLOGY === 'distributed') {
    // The production gateway has a reCAPTCHA site key, so every page loads Google's script:
    // every context gets the stand-in for it (see stubRecaptcha).
    const newContext = browser.newContext.bind(browser);
    browser.newContext = async (options) => {
      const context = await newContext(options);
      await stubRecaptcha(context);
      return context;
    };
  }
  return browser;
}
