/**
 * Checks what every e2e file needs before any starts: Debian's Chromium (installed by
 * scripts/ensure-chromium.sh, never downloaded by a tool), the web build the binary serves
 * (built here when missing) and the standalone binary.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { CHROMIUM_PATH, DIST_DIR, MICLUB_BIN, RESULTS_DIR, WEB_DIR } from './paths';

export default function setup(): void {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: run 'bash scripts/ensure-chromium.sh' in web/`);
  }
  if (!existsSync(join(DIST_DIR, 'index.html'))) {
    execFileSync('npx', ['vite', 'build'], { cwd: WEB_DIR, stdio: 'inherit' });
  }
  if (!existsSync(MICLUB_BIN)) {
    throw new Error(
      `The standalone binary is missing at ${MICLUB_BIN}: build it with 'cargo build -p miclub-standalone' ` +
        'at the repository root, or point MICLUB_BIN at it',
    );
  }
  mkdirSync(join(RESULTS_DIR, 'screenshots'), { recursive: true });
}
