/**
 * The production topology for one test file: `miclub-distributed --test` starts the six
 * binaries from the rendered k8s dev overlay (their own databases and Redis keys on the run's
 * servers, see servers.ts, dropped when it stops), internal gRPC over TLS, mail over SMTP to
 * maildev. It writes a ready file once every process answers its readiness probe; that file is
 * this harness's only handle.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { BrowserContext } from 'playwright-core';
import { inject } from 'vitest';

import { reportEndedByItself } from './incidents';
import { BIN_DIR, DISTRIBUTED_BIN, REPO_DIR } from './paths';

/** What `miclub-distributed --ready-file` writes. */
type Ready = {
  gatewayUrl: string;
  mailJsonUrl: string;
  caFile: string;
  grpc: Record<string, string>;
  clientSecrets: { pos: string; ops: string };
};

export type Distributed = {
  ready: Ready;
  /** The internal CA the gRPC ports' certificates chain to. */
  ca: Buffer;
  /** The pid of `miclub-distributed`, whose children are the six processes. */
  pid: number;
  logs: () => string;
  stop: () => Promise<void>;
};

const READY_TIMEOUT_MS = 180_000;

/** What miclub-distributed logs when one of its processes ends without being asked to. */
const PROCESS_ENDED = 'a process exited by itself';

export async function startDistributed(overrides: Record<string, string>): Promise<Distributed> {
  const stateDir = await mkdtemp(join(tmpdir(), 'miclub-e2e-distributed-'));
  const readyFile = join(stateDir, 'ready.json');
  const args = ['--test', '--port', '0', '--bin-dir', BIN_DIR, '--state-dir', stateDir, '--ready-file', readyFile];
  for (const [key, value] of Object.entries(overrides)) args.push('--set', `${key}=${value}`);
  let output = '';
  const servers = inject('servers');
  const child = spawn(DISTRIBUTED_BIN, args, {
    cwd: REPO_DIR,
    env: { ...process.env, MICLUB_POSTGRES_ADMIN_URL: servers.postgresAdminUrl, MICLUB_REDIS_URL: servers.redisUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  let stopping = false;
  let isReady = false;
  // A topology that ends by itself after it was ready fails the file's next page load with a
  // bare ERR_CONNECTION_REFUSED; its output says which process ended and why, so it goes to
  // the run's log. Once a process ended, miclub-distributed takes up to its 30 s grace stopping
  // the rest, and the failed file's afterAll may ask it to stop meanwhile: its own line about
  // the process still makes it an incident. On 'close', once all its output has been read.
  child.once('close', (code, signal) => {
    if (isReady && (!stopping || output.includes(PROCESS_ENDED))) {
      reportEndedByItself('miclub-distributed', code, signal, output);
    }
  });

  const stop = async () => {
    stopping = true;
    if (running()) {
      // SIGTERM: miclub-distributed stops its processes and drops this run's databases.
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(stateDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (!running()) {
      await stop();
      throw new Error(`miclub-distributed exited before it was ready (code ${child.exitCode}):\n${output}`);
    }
    const text = await readFile(readyFile, 'utf8').catch(() => null);
    if (text) {
      const ready = JSON.parse(text) as Ready;
      isReady = true;
      return { ready, ca: await readFile(ready.caFile), pid: child.pid ?? 0, logs: () => output, stop };
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await stop();
  throw new Error(`miclub-distributed was not ready within ${READY_TIMEOUT_MS} ms:\n${output}`);
}

/** One message as maildev's `/api/email` lists it. */
type CaughtMail = {
  subject: string;
  text?: string;
  date: string;
  to: { address: string }[];
};

/** How auth writes a one-time code in its mails ("… es 012345. Vence en …"). */
const CODE_IN_TEXT = /\bes (\d{6,9})\. Vence/;

/** maildev's captured messages in the dev mailbox's shape: newest first, the code extracted. */
export async function readCaughtMail(
  mailJsonUrl: string,
): Promise<{ to: string; subject: string; body: string; code: string | null; sentAt: string }[]> {
  const response = await fetch(mailJsonUrl);
  if (response.status !== 200) throw new Error(`GET ${mailJsonUrl} answered ${response.status}`);
  const caught = (await response.json()) as CaughtMail[];
  return caught
    .flatMap((mail) =>
      mail.to.map((recipient) => ({
        to: recipient.address,
        subject: mail.subject,
        body: mail.text ?? '',
        code: CODE_IN_TEXT.exec(mail.text ?? '')?.[1] ?? null,
        sentAt: mail.date,
      })),
    )
    .reverse();
}

/**
 * Google's reCAPTCHA script, as the page loads it, replaced by one that mints the token the
 * topology's siteverify stand-in accepts for the form's action (`local:<action>`). The gateway
 * still verifies every token through its production verifier; only Google is out of reach.
 */
export async function stubRecaptcha(context: Pick<BrowserContext, 'route'>): Promise<void> {
  await context.route('https://www.google.com/recaptcha/**', (route) =>
    route.fulfill({
      contentType: 'text/javascript',
      body: `window.grecaptcha = {
        ready: (callback) => callback(),
        execute: (_siteKey, options) => Promise.resolve('local:' + ((options && options.action) || '')),
      };`,
    }),
  );
}
