/** Where the e2e tests find the web build, the standalone binary and Chromium. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const REPO_DIR = resolve(WEB_DIR, '..');
export const DIST_DIR = resolve(WEB_DIR, 'dist');
export const RESULTS_DIR = resolve(WEB_DIR, 'test-results');
/** `MICLUB_BIN`, relative to web/ when not absolute; default the debug build of the workspace. */
export const MICLUB_BIN = resolve(WEB_DIR, process.env.MICLUB_BIN ?? '../target/debug/miclub');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
