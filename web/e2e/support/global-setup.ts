/**
 * Checks what every e2e file needs before any starts: Debian's Chromium (installed by
 * scripts/ensure-chromium.sh, never downloaded by a tool), the web build the binary serves
 * (built here when missing) and the portal's binaries (the standalone one, and the six with
 * miclub-distributed for MICLUB_TOPOLOGY=distributed, and the PostgreSQL and Redis it runs on),
 * and the database client the storage faults of ./faults use (`sqlite3`, or `psql`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import type { TestProject } from 'vitest/node';

import { BIN_DIR, CHROMIUM_PATH, DIST_DIR, MICLUB_BIN, RESULTS_DIR, TOPOLOGY, WEB_DIR } from './paths';
import { provideServers } from './servers';

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`Chromium not found at ${CHROMIUM_PATH}: run 'bash scripts/ensure-chromium.sh' in web/`);
  }
  if (!existsSync(join(DIST_DIR, 'index.html'))) {
    // Vitest sets NODE_ENV=test, which a child build would inherit and turn into a development
    // bundle (React's dev JSX runtime): the portal is tested as it ships.
    execFileSync('npx', ['vite', 'build'], { cwd: WEB_DIR, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  }
  if (!existsSync(MICLUB_BIN)) {
    throw new Error(
      `The standalone binary is missing at ${MICLUB_BIN}: build it with 'cargo build -p miclub-standalone' ` +
        'at the repository root, or point MICLUB_BIN at it',
    );
  }
  if (TOPOLOGY === 'distributed') {
    const missing = ['miclub-distributed', ...SERVICE_BINARIES].filter((name) => !existsSync(join(BIN_DIR, name)));
    if (missing.length > 0) {
      throw new Error(
        `MICLUB_TOPOLOGY=distributed needs ${missing.join(', ')} in ${BIN_DIR}: ` +
          "build them with 'cargo build --workspace' at the repository root",
      );
    }
  }
  const client = TOPOLOGY === 'distributed' ? 'psql' : 'sqlite3';
  try {
    execFileSync(client, ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error(
      `The e2e storage faults need '${client}' on the PATH: install Debian's ` +
        `${client === 'psql' ? 'postgresql-client' : 'sqlite3'} package`,
    );
  }
  mkdirSync(join(RESULTS_DIR, 'screenshots'), { recursive: true });
  if (TOPOLOGY === 'distributed') {
    const { servers, stop } = await provideServers();
    project.provide('servers', servers);
    return stop;
  }
  return undefined;
}

/** The six binaries the container images run, started by miclub-distributed. */
const SERVICE_BINARIES = ['gateway', 'auth', 'accounts', 'missions', 'content', 'registration'].map((s) => `miclub-${s}`);
