// The rate limits of processes on one PostgreSQL server are one count (RATE_LIMIT_SCOPE=shared,
// the default with STORE=postgres): each process admits requests from points it leased from the
// database, so four processes admit a restaurant's limit once between them, never more; they may
// refuse while the others hold points unused, at most a lease each (a tenth of the window), and a
// process killed takes its unused lease with it (docs/scaling.md). With RATE_LIMIT_SCOPE=process
// each counts its own, as before. The 15-minute window is the one spent (30 requests), so that no
// request's outcome depends on when a second begins.
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { exited, killTree } from '../support/processes.js';
import {
  devLogin,
  type ServerProcess,
  startReferenceServers,
} from '../support/reference-server.js';

const PROCESSES = 4;
const LIMIT = 30;
const REQUESTS = 80;
/** The demo seed's restaurant and one of its development-login clients. */
const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const CLIENT = {
  clientId: 'harbor-street-integration',
  clientSecret: 'demo-secret-harbor-street-7d3f9a',
};
const SECRET = 'shared-rate-limit-test-secret-0123456789abcdef';
/** The most of a window one process leases at once: a tenth of it (RATE_LIMIT_LEASE_DEFAULTS). */
const LEASE = Math.max(1, Math.floor(LIMIT / 10));

let database: PostgresServer;
beforeAll(async () => {
  database = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await database?.destroy();
});

/** Processes on a new database, each with the settings of its entry of `each` besides these. */
async function startProcesses(
  scope: 'shared' | 'process' | undefined,
  each: readonly Record<string, string>[] = Array.from({ length: PROCESSES }, () => ({})),
): Promise<{ servers: ServerProcess[]; databaseUrl: string }> {
  const databaseUrl = await database.createDatabase();
  const servers = await startReferenceServers(
    each.map((env) => ({
      STORE: 'postgres',
      DATABASE_URL: databaseUrl,
      AUTH_HS256_SECRET: SECRET,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_PER_15_MIN: String(LIMIT),
      ...(scope === undefined ? {} : { RATE_LIMIT_SCOPE: scope }),
      ...env,
    })),
  );
  return { servers, databaseUrl };
}

/** Runs `sql` on a database: its rows. */
async function query<Row extends pg.QueryResultRow>(
  databaseUrl: string,
  sql: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<Row>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** A GET of the restaurant from `server`: its status. */
async function get(server: ServerProcess, token: string): Promise<number> {
  const res = await fetch(`${server.url}/restaurants/v1/restaurants/${HARBOR}`, {
    headers: {
      authorization: `Bearer ${token}`,
      'platform-restaurant-external-id': HARBOR,
    },
  });
  await res.arrayBuffer();
  return res.status;
}

/** GETs of the restaurant, all at once, spread over the processes in turn: the statuses, counted. */
async function spread(servers: ServerProcess[]): Promise<Record<number, number>> {
  const token = await devLogin((servers[0] as ServerProcess).url, CLIENT);
  const statuses: Record<number, number> = {};
  await Promise.all(
    Array.from({ length: REQUESTS }, async (_, i) => {
      const status = await get(servers[i % servers.length] as ServerProcess, token);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }),
  );
  return statuses;
}

describe('reference servers on one PostgreSQL server', { timeout: 120_000 }, () => {
  it(`${PROCESSES} admit at most ${LIMIT} requests of a restaurant between them, by default, and refuse the rest with 429`, async () => {
    const { servers } = await startProcesses(undefined);
    try {
      const statuses = await spread(servers);
      expect(Object.keys(statuses).sort()).toEqual(['200', '429']);
      expect((statuses[200] ?? 0) + (statuses[429] ?? 0)).toBe(REQUESTS);
      // Never more than the limit; fewer only by the points the others held unused when one was
      // refused, at most a lease each.
      expect(statuses[200]).toBeLessThanOrEqual(LIMIT);
      expect(statuses[200]).toBeGreaterThanOrEqual(LIMIT - (PROCESSES - 1) * LEASE);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  it('two: the one killed takes at most its unused lease with it, and the other admits the rest, never more than the limit', async () => {
    // The killed process's connections are told apart by their application_name.
    const KILLED = 'workforce-kit-killed';
    const { servers, databaseUrl } = await startProcesses(undefined, [{}, { PGAPPNAME: KILLED }]);
    const [survivor, killed] = servers as [ServerProcess, ServerProcess];
    try {
      const token = await devLogin(survivor.url, CLIENT);
      // One after the other, so that the killed process leases more as it goes (each lease
      // twice the last, up to a tenth of the window) and holds some unused when it dies.
      const before = 7;
      for (let i = 0; i < before; i += 1) expect(await get(killed, token)).toBe(200);
      killTree(killed.process.pid);
      await exited(killed.process);
      // Once its connections have ended (a claim it sent may still have been running), what it
      // claimed is in the table, its unused points among them: spent for this window.
      await vi.waitFor(
        async () => {
          const left = await query<{ count: number }>(
            databaseUrl,
            'SELECT count(*)::int AS count FROM pg_stat_activity WHERE application_name = $1',
            [KILLED],
          );
          expect(left[0]?.count).toBe(0);
        },
        { timeout: 30_000, interval: 100 },
      );
      const [row] = await query<{ points: number }>(
        databaseUrl,
        'SELECT points FROM workforce_kit_rate_limits WHERE key = $1',
        [`15 minutes:restaurant:${HARBOR}`],
      );
      const claimed = row?.points ?? 0;
      expect(claimed - before).toBeGreaterThanOrEqual(0);
      expect(claimed - before).toBeLessThanOrEqual(LEASE);
      // The survivor admits exactly what was left, then refuses: at least the limit less the
      // killed process's unused lease, never more than the limit.
      const statuses: number[] = [];
      for (let i = 0; i < LIMIT; i += 1) statuses.push(await get(survivor, token));
      const admitted = statuses.filter((status) => status === 200).length;
      expect(admitted).toBe(LIMIT - claimed);
      expect(before + admitted).toBeGreaterThanOrEqual(LIMIT - LEASE);
      expect(statuses.slice(admitted).every((status) => status === 429)).toBe(true);
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  it(`${PROCESSES} admit ${LIMIT} each with RATE_LIMIT_SCOPE=process`, async () => {
    const { servers } = await startProcesses('process');
    try {
      expect(await spread(servers)).toEqual({ 200: REQUESTS });
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});
