/** Where the e2e tests find the web build, the portal's binaries and Chromium. */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const REPO_DIR = resolve(WEB_DIR, '..');
export const DIST_DIR = resolve(WEB_DIR, 'dist');
/** `MICLUB_BIN`, relative to web/ when not absolute; default the debug build of the workspace. */
export const MICLUB_BIN = resolve(WEB_DIR, process.env.MICLUB_BIN ?? '../target/debug/miclub');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/**
 * `MICLUB_TOPOLOGY`: `standalone` (default: the one-process binary) or `distributed` (the six
 * binaries next to it, started by `miclub-distributed` from the rendered k8s overlay on
 * PostgreSQL and Redis).
 */
export const TOPOLOGY: 'standalone' | 'distributed' =
  process.env.MICLUB_TOPOLOGY === 'distributed' ? 'distributed' : 'standalone';
/** The folder of the binaries: `miclub-distributed` and the six services sit beside `miclub`. */
export const BIN_DIR = dirname(MICLUB_BIN);
export const DISTRIBUTED_BIN = resolve(BIN_DIR, 'miclub-distributed');
/** Screenshots and reports, one folder per topology (the two suites run side by side). */
export const RESULTS_DIR = resolve(WEB_DIR, TOPOLOGY === 'distributed' ? 'test-results/distributed' : 'test-results');
/** How the describe blocks name the portal under test. */
export const PORTAL_UNDER_TEST = TOPOLOGY === 'distributed' ? 'the six production processes' : 'the standalone binary';
