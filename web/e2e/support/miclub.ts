/**
 * Starts the real standalone binary for one test file: a free port, a fresh data folder, the
 * built web app, and whatever extra configuration the file needs; stops it afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { DIST_DIR, MICLUB_BIN, REPO_DIR } from './paths';

/**
 * The internal gRPC side of one instance: fixed loopback ports for the services the tests call
 * and the secrets of the internal clients standalone registers at auth ("pos", a store system
 * that posts purchases; "ops", the back office that sets flags).
 */
export type MiclubGrpc = {
  authPort: number;
  accountsPort: number;
  contentPort: number;
  posClientSecret: string;
  opsClientSecret: string;
};

export type Miclub = {
  baseUrl: string;
  grpc: MiclubGrpc;
  /** Everything the process printed so far, for failure messages. */
  logs: () => string;
  stop: () => Promise<void>;
};

const HEALTH_TIMEOUT_MS = 90_000;

/** A port the OS says is free now (bound on port 0, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

export async function startMiclub(extraEnv: Record<string, string> = {}): Promise<Miclub> {
  const port = await freePort();
  const grpc: MiclubGrpc = {
    authPort: await freePort(),
    accountsPort: await freePort(),
    contentPort: await freePort(),
    posClientSecret: randomBytes(24).toString('hex'),
    opsClientSecret: randomBytes(24).toString('hex'),
  };
  const dataDir = await mkdtemp(join(tmpdir(), 'miclub-e2e-'));
  let output = '';
  const child = spawn(MICLUB_BIN, [], {
    cwd: REPO_DIR,
    env: {
      ...process.env,
      APP_GATEWAY__PORT: String(port),
      APP_STANDALONE__DATA_DIR: dataDir,
      APP_GATEWAY__WEB_DIR: DIST_DIR,
      // Explicit ports are honoured by standalone (others stay on port 0), so the tests can call
      // the internal APIs as a store system or the back office would.
      APP_AUTH__SERVER__PORT: String(grpc.authPort),
      APP_ACCOUNTS__SERVER__PORT: String(grpc.accountsPort),
      APP_CONTENT__SERVER__PORT: String(grpc.contentPort),
      APP_STANDALONE__POS_CLIENT_SECRET: grpc.posClientSecret,
      APP_STANDALONE__OPS_CLIENT_SECRET: grpc.opsClientSecret,
      // An operator's flag switch shows at the next poll instead of after the 30 s cache.
      APP_GATEWAY__FLAGS_CACHE_SECS: '1',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited(child);
      clearTimeout(killer);
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`miclub exited before answering /api/health (code ${child.exitCode}):\n${output}`);
    }
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.status === 200) return { baseUrl, grpc, logs: () => output, stop };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`miclub did not answer /api/health within ${HEALTH_TIMEOUT_MS} ms:\n${output}`);
}

export type MailboxEntry = { to: string; subject: string; body: string; code: string | null; sentAt: string };

export async function readMailbox(baseUrl: string): Promise<MailboxEntry[]> {
  const response = await fetch(`${baseUrl}/api/dev/mailbox`);
  if (response.status !== 200) throw new Error(`GET /api/dev/mailbox answered ${response.status}`);
  return (await response.json()) as MailboxEntry[];
}

/** The newest code sent to `email` that was not in `before`, waiting up to 10 s for it. */
export async function waitForNewCode(baseUrl: string, email: string, before: MailboxEntry[]): Promise<string> {
  const seen = new Set(before.map((entry) => JSON.stringify(entry)));
  const deadline = Date.now() + 10_000;
  let last: MailboxEntry[] = [];
  while (Date.now() < deadline) {
    last = await readMailbox(baseUrl);
    const entry = last.find((candidate) => candidate.to === email && !seen.has(JSON.stringify(candidate)));
    if (entry?.code) return entry.code;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no new code for ${email} in the dev mailbox; it holds: ${JSON.stringify(last.map((e) => e.to))}`);
}
