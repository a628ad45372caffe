/**
 * Starts the real portal for one test file: a free port, fresh data, the built web app, and
 * whatever extra configuration the file needs; stops it afterwards. `MICLUB_TOPOLOGY` picks the
 * standalone binary (default) or the six production processes (`./distributed`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { readCaughtMail, startDistributed } from './distributed';
import { reportEndedByItself } from './incidents';
import { DIST_DIR, MICLUB_BIN, REPO_DIR, TOPOLOGY } from './paths';

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
  /** The internal CA when the ports speak TLS (the distributed topology), else none. */
  ca: Buffer | null;
};

/**
 * Where the services run and keep their data, for the faults of ./faults: one process with a
 * SQLite file per service in `dataDir` (standalone), or one process per service started by
 * `miclub-distributed` (pid `topologyPid`), each with its own PostgreSQL database.
 */
export type MiclubServices = { kind: 'standalone'; dataDir: string } | { kind: 'distributed'; topologyPid: number };

export type Miclub = {
  baseUrl: string;
  grpc: MiclubGrpc;
  services: MiclubServices;
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

/** Where each running instance's mail is read, by its base URL. */
const mailboxes = new Map<string, () => Promise<MailboxEntry[]>>();

export async function startMiclub(extraEnv: Record<string, string> = {}): Promise<Miclub> {
  const settings = {
    // An operator's flag switch shows at the next poll instead of after the 30 s cache.
    APP_GATEWAY__FLAGS_CACHE_SECS: '1',
    ...extraEnv,
  };
  const miclub = TOPOLOGY === 'distributed' ? await startDistributedMiclub(settings) : await startStandalone(settings);
  const stop = miclub.stop;
  return {
    ...miclub,
    stop: async () => {
      mailboxes.delete(miclub.baseUrl);
      await stop();
    },
  };
}

async function startDistributedMiclub(settings: Record<string, string>): Promise<Miclub> {
  const distributed = await startDistributed(settings);
  const { ready } = distributed;
  const port = (workload: string): number => {
    const address = ready.grpc[workload];
    if (!address) throw new Error(`the topology has no gRPC port for ${workload}`);
    return Number(address.split(':').pop());
  };
  mailboxes.set(ready.gatewayUrl, () => readCaughtMail(ready.mailJsonUrl));
  return {
    baseUrl: ready.gatewayUrl,
    grpc: {
      authPort: port('auth'),
      accountsPort: port('accounts'),
      contentPort: port('content'),
      posClientSecret: ready.clientSecrets.pos,
      opsClientSecret: ready.clientSecrets.ops,
      ca: distributed.ca,
    },
    services: { kind: 'distributed', topologyPid: distributed.pid },
    logs: distributed.logs,
    stop: distributed.stop,
  };
}

/** The binary could not bind a port picked for it: another process took it in between. */
class PortTaken extends Error {}

/** How often a start that lost a picked port to another process is tried with new ports. */
const PORT_ATTEMPTS = 3;

async function startStandalone(settings: Record<string, string>): Promise<Miclub> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startStandaloneOnce(settings);
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt === PORT_ATTEMPTS) throw error;
      console.warn(`miclub lost a picked port before binding it; starting again (${error.message})`);
    }
  }
}

/**
 * One start on ports picked here. A port free when picked may be taken before the binary binds
 * it (by one of its own services listening on port 0, or by anything else on the machine): the
 * binary then exits saying "Address already in use", answered as [PortTaken] so the caller can
 * pick again.
 */
async function startStandaloneOnce(settings: Record<string, string>): Promise<Miclub> {
  const port = await freePort();
  const grpc: MiclubGrpc = {
    authPort: await freePort(),
    accountsPort: await freePort(),
    contentPort: await freePort(),
    posClientSecret: randomBytes(24).toString('hex'),
    opsClientSecret: randomBytes(24).toString('hex'),
    ca: null,
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
      ...settings,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const baseUrl = `http://127.0.0.1:${port}`;
  // What the binary logs once all its components listen (standalone/src/lib.rs).
  const readyLine = `mi club standalone ready at ${baseUrl}/`;
  let stopping = false;
  let isReady = false;
  // The binary ending by itself after it was ready fails the file's next page load with a bare
  // ERR_CONNECTION_REFUSED; what it printed says why, so it goes to the run's log at once.
  child.once('close', (code, signal) => {
    if (isReady && !stopping) reportEndedByItself('miclub', code, signal, output);
  });
  const stop = async () => {
    stopping = true;
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
      const taken = /binding (?:the ops port )?(\S+)\s[\s\S]*?Address already in use/.exec(output);
      if (taken) throw new PortTaken(`${taken[1]} was taken`);
      throw new Error(`miclub exited before answering /api/health (code ${child.exitCode}):\n${output}`);
    }
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      // Whoever answers on the port must be this binary: one that lost the port to another
      // portal (the other suite's, say) would otherwise pass that portal's health off as its own.
      if (response.status === 200 && output.includes(readyLine)) {
        isReady = true;
        mailboxes.set(baseUrl, () => readDevMailbox(baseUrl));
        return { baseUrl, grpc, services: { kind: 'standalone', dataDir }, logs: () => output, stop };
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`miclub did not answer /api/health within ${HEALTH_TIMEOUT_MS} ms:\n${output}`);
}

export type MailboxEntry = { to: string; subject: string; body: string; code: string | null; sentAt: string };

/** The mail the instance at `baseUrl` sent, newest first: its dev mailbox, or the mail catcher. */
export async function readMailbox(baseUrl: string): Promise<MailboxEntry[]> {
  const read = mailboxes.get(baseUrl);
  if (!read) throw new Error(`no running instance at ${baseUrl}`);
  return read();
}

async function readDevMailbox(baseUrl: string): Promise<MailboxEntry[]> {
  const response = await fetch(`${baseUrl}/api/dev/mailbox`);
  if (response.status !== 200) throw new Error(`GET /api/dev/mailbox answered ${response.status}`);
  return (await response.json()) as MailboxEntry[];
}

/**
 * The newest mail `wanted` picks that was not in `before`, waiting up to 10 s for it: mail
 * leaves through a queue (over SMTP in the distributed topology), so it lands shortly after
 * the request that sent it was answered.
 */
export async function waitForMail(
  baseUrl: string,
  wanted: (entry: MailboxEntry) => boolean,
  before: MailboxEntry[] = [],
): Promise<MailboxEntry> {
  const seen = new Set(before.map((entry) => JSON.stringify(entry)));
  const deadline = Date.now() + 10_000;
  let last: MailboxEntry[] = [];
  while (Date.now() < deadline) {
    last = await readMailbox(baseUrl);
    const entry = last.find((candidate) => wanted(candidate) && !seen.has(JSON.stringify(candidate)));
    if (entry) return entry;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`no such new mail in the mailbox; it holds mail to: ${JSON.stringify(last.map((e) => e.to))}`);
}

/** The newest code sent to `email` that was not in `before`, waiting up to 10 s for it. */
export async function waitForNewCode(baseUrl: string, email: string, before: MailboxEntry[]): Promise<string> {
  const entry = await waitForMail(baseUrl, (candidate) => candidate.to === email && candidate.code !== null, before);
  return entry.code ?? '';
}

/**
 * The `recaptcha-token` a direct API call sends for form `action`: anything passes the
 * standalone binary's pass-through verifier; the distributed topology's siteverify stand-in
 * accepts `local:<action>` only.
 */
export function recaptchaToken(action: string): string {
  return TOPOLOGY === 'distributed' ? `local:${action}` : 'standalone';
}

/**
 * A credential cookie by its name: served over TLS, as production is, it takes the `__Host-`
 * prefix (`__Host-mc_session`); the standalone binary on plain HTTP sends the bare name.
 */
export function credentialCookie<C extends { name: string }>(cookies: C[], name: string): C | undefined {
  return cookies.find((cookie) => cookie.name === name || cookie.name === `__Host-${name}`);
}
