// The rate limits of processes on one PostgreSQL server are one count (RATE_LIMIT_SCOPE=shared,
// the default with STORE=postgres): four processes admit a restaurant's limit once between them.
// With RATE_LIMIT_SCOPE=process each counts its own, as before. The 15-minute window is the one
// spent (30 requests), so that no request's outcome depends on when a second begins.
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

let database: PostgresServer;
beforeAll(async () => {
  database = await startPostgresServer();
}, 60_000);
afterAll(async () => {
  await database?.destroy();
});

async function startProcesses(scope: 'shared' | 'process' | undefined): Promise<ServerProcess[]> {
  const DATABASE_URL = await database.createDatabase();
  return startReferenceServers(
    Array.from({ length: PROCESSES }, () => ({
      STORE: 'postgres',
      DATABASE_URL,
      AUTH_HS256_SECRET: SECRET,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_PER_15_MIN: String(LIMIT),
      ...(scope === undefined ? {} : { RATE_LIMIT_SCOPE: scope }),
    })),
  );
}

/** GETs of the restaurant, spread over the processes in turn: the statuses, counted. */
async function spread(servers: ServerProcess[]): Promise<Record<number, number>> {
  const token = await devLogin((servers[0] as ServerProcess).url, CLIENT);
  const statuses: Record<number, number> = {};
  await Promise.all(
    Array.from({ length: REQUESTS }, async (_, i) => {
      const server = servers[i % servers.length] as ServerProcess;
      const res = await fetch(`${server.url}/restaurants/v1/restaurants/${HARBOR}`, {
        headers: {
          authorization: `Bearer ${token}`,
          'platform-restaurant-external-id': HARBOR,
        },
      });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }),
  );
  return statuses;
}

describe(`${PROCESSES} processes on one PostgreSQL server`, { timeout: 120_000 }, () => {
  it(`admit ${LIMIT} requests of a restaurant between them, by default, and refuse the rest with 429`, async () => {
    const servers = await startProcesses(undefined);
    try {
      expect(await spread(servers)).toEqual({ 200: LIMIT, 429: REQUESTS - LIMIT });
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });

  it(`admit ${LIMIT} each with RATE_LIMIT_SCOPE=process`, async () => {
    const servers = await startProcesses('process');
    try {
      expect(await spread(servers)).toEqual({ 200: REQUESTS });
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
    }
  });
});
