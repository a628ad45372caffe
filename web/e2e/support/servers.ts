/**
 * The PostgreSQL and Redis the distributed topology provisions its databases and keys on.
 * `MICLUB_POSTGRES_ADMIN_URL` and `MICLUB_REDIS_URL` win (scripts/test sets them to the
 * machine's servers); without them, where a Docker engine is reachable, testcontainers starts
 * both for this run, as the Rust tests do (miclub_platform::testing); otherwise the local
 * defaults. The global setup starts them once and hands the URLs to every file.
 * testcontainers stays on its 11 line: 12 needs undici 8, hence Node 22, and these machines run
 * Debian's Node 20.
 */
import { existsSync } from 'node:fs';

export type Servers = { postgresAdminUrl: string; redisUrl: string };

declare module 'vitest' {
  export interface ProvidedContext {
    servers: Servers;
  }
}

const DOCKER_SOCKET = '/var/run/docker.sock';

/** The servers, and what stops them when this run started them. */
export async function provideServers(): Promise<{ servers: Servers; stop: () => Promise<void> }> {
  const postgresAdminUrl = process.env.MICLUB_POSTGRES_ADMIN_URL;
  const redisUrl = process.env.MICLUB_REDIS_URL;
  if (postgresAdminUrl && redisUrl) {
    return { servers: { postgresAdminUrl, redisUrl }, stop: async () => {} };
  }
  if (existsSync(DOCKER_SOCKET)) {
    // Loaded only here: without Docker there is nothing for it to do.
    const [{ PostgreSqlContainer }, { RedisContainer }] = await Promise.all([
      import('@testcontainers/postgresql'),
      import('@testcontainers/redis'),
    ]);
    const [postgres, redis] = await Promise.all([
      new PostgreSqlContainer('postgres:16-alpine').start(),
      new RedisContainer('redis:7-alpine').start(),
    ]);
    return {
      servers: {
        postgresAdminUrl: postgres.getConnectionUri(),
        redisUrl: redis.getConnectionUrl(),
      },
      stop: async () => {
        await Promise.all([postgres.stop(), redis.stop()]);
      },
    };
  }
  return {
    servers: {
      postgresAdminUrl: postgresAdminUrl ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      redisUrl: redisUrl ?? 'redis://127.0.0.1:6379',
    },
    stop: async () => {},
  };
}
