/**
 * Faults for the e2e tests: the real portal failing for real, so the page shows what a member
 * would see on a bad day. One service's own database refuses what it is asked (its SQLite file
 * in standalone, through Debian's `sqlite3`; its PostgreSQL database and role in the distributed
 * topology, through `psql`, with the URL the service itself was started with), so the gateway
 * answers its 500. Every fault comes with its undo.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';

import type { Miclub } from './miclub';

const run = promisify(execFile);

export type ServiceName = 'auth' | 'accounts' | 'content' | 'missions' | 'registration';

/** Runs `statements` (the dialect of the topology's storage) on `service`'s database. */
async function runSql(miclub: Miclub, service: ServiceName, statements: { sqlite: string; postgres: string }) {
  const services = miclub.services;
  if (services.kind === 'standalone') {
    await run('sqlite3', ['-bail', '-cmd', '.timeout 10000', join(services.dataDir, `${service}.db`), statements.sqlite]);
  } else {
    const url = await databaseUrl(services.topologyPid, service);
    await run('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', url, '-c', statements.postgres]);
  }
}

/**
 * The pids of the running `miclub-<service>` processes (a Deployment may run several replicas),
 * among the children of `miclub-distributed`.
 */
async function servicePids(topologyPid: number, service: ServiceName): Promise<number[]> {
  const found: number[] = [];
  for (const task of await readdir(`/proc/${topologyPid}/task`)) {
    const children = (await readFile(`/proc/${topologyPid}/task/${task}/children`, 'utf8').catch(() => '')).trim();
    for (const pid of children.split(/\s+/).filter(Boolean)) {
      const command = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0')[0] ?? '';
      if (basename(command) === `miclub-${service}`) found.push(Number(pid));
    }
  }
  if (found.length === 0) throw new Error(`no running miclub-${service} under pid ${topologyPid}`);
  return found;
}

/** The database URL the running `miclub-<service>` was given (`APP_<SERVICE>__DATABASE__URL`). */
async function databaseUrl(topologyPid: number, service: ServiceName): Promise<string> {
  const variable = `APP_${service.toUpperCase()}__DATABASE__URL=`;
  const [pid] = await servicePids(topologyPid, service);
  const entry = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').find((line) => line.startsWith(variable));
  if (!entry) throw new Error(`miclub-${service} has no ${variable.slice(0, -1)}`);
  return entry.slice(variable.length);
}

/**
 * Takes `table` of `service` away (renamed) until the returned undo puts it back: every query
 * that reads it fails, as when a migration went wrong or the database lost it.
 */
export async function hideTable(miclub: Miclub, service: ServiceName, table: string): Promise<() => Promise<void>> {
  const hidden = `${table}_e2e_hidden`;
  await runSql(miclub, service, {
    sqlite: `ALTER TABLE ${table} RENAME TO ${hidden};`,
    postgres: `ALTER TABLE ${table} RENAME TO ${hidden};`,
  });
  return () =>
    runSql(miclub, service, {
      sqlite: `ALTER TABLE ${hidden} RENAME TO ${table};`,
      postgres: `ALTER TABLE ${hidden} RENAME TO ${table};`,
    });
}

/**
 * Makes `service`'s database refuse every UPDATE of `column` in `table` (a trigger that raises)
 * until the returned undo drops it: the write fails, everything else keeps working.
 */
export async function refuseUpdates(
  miclub: Miclub,
  service: ServiceName,
  table: string,
  column: string,
): Promise<() => Promise<void>> {
  const trigger = `e2e_refuse_${table}_${column}`;
  await runSql(miclub, service, {
    sqlite: `CREATE TRIGGER ${trigger} BEFORE UPDATE OF ${column} ON ${table}
      BEGIN SELECT RAISE(ABORT, 'refused by the e2e test'); END;`,
    postgres: `CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE EXCEPTION 'refused by the e2e test'; END $$;
      CREATE TRIGGER ${trigger} BEFORE UPDATE OF ${column} ON ${table}
        FOR EACH ROW EXECUTE FUNCTION ${trigger}();`,
  });
  return () =>
    runSql(miclub, service, {
      sqlite: `DROP TRIGGER ${trigger};`,
      postgres: `DROP TRIGGER ${trigger} ON ${table}; DROP FUNCTION ${trigger}();`,
    });
}
