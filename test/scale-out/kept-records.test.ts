// Records kept in process, across processes (issue 42): three reference-server processes on one
// PostgreSQL server, behind a round-robin balancer, each keeping the employees and shifts it last
// read or wrote, take the contract kit's concurrent group: changes of the same few records sent at
// once, spread over the three, the history held to the state tables. It passes on the real store.
// Then the same three processes have stale answers switched on (a mutant of the store, loaded into
// them by stale-answers/register.mjs and switched by SIGUSR2, which hides from the use cases that a
// read was answered from a record kept): they answer a no-op or a refusal from a record another
// process has changed since, and the group fails. A target cannot be reset, so the two runs use two
// copies of the demo seed under different GUIDs, both loaded at the start.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkApiContract, formatReport } from '@workforce-kit/contract-testing';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type HttpProxy,
  startProxy,
} from '../../packages/contract-testing/test/support/http-proxy.js';
import { type ServerProcess, startReferenceServers } from '../support/reference-server.js';

const PROCESSES = 3;
const RUNS = 60;
const RNG_SEED = 42;
const ISSUER = 'https://id.example.com/';
const AUDIENCE = 'workforce-api';
const secret = randomBytes(32).toString('hex');
const auth = { hs256Secret: secret, issuer: ISSUER, audience: AUDIENCE };
const DEMO_SEED_FILE = fileURLToPath(
  new URL('../../packages/server/seed/demo-seed.json', import.meta.url),
);
const MUTANT = fileURLToPath(new URL('./stale-answers/register.mjs', import.meta.url));

let folder: string;
let otherSeedFile: string;
let postgres: PostgresServer | undefined;
let servers: ServerProcess[] = [];
let balancer: HttpProxy | undefined;

/** The demo seed's records under other GUIDs, and both seeds in one file. */
async function writeSeeds(): Promise<string> {
  const demo = JSON.parse(await readFile(DEMO_SEED_FILE, 'utf8')) as Record<string, unknown[]>;
  const records = { restaurants: demo.restaurants, employees: demo.employees, shifts: demo.shifts };
  let text = JSON.stringify(records);
  for (const part of Object.values(records)) {
    for (const { guid } of (part ?? []) as { guid: string }[]) {
      text = text.replaceAll(guid, randomUUID());
    }
  }
  const other = JSON.parse(text) as Record<string, unknown[]>;
  otherSeedFile = join(folder, 'other-seed.json');
  await writeFile(otherSeedFile, JSON.stringify(other));
  const both = join(folder, 'both-seeds.json');
  const merged = { ...demo };
  for (const part of ['restaurants', 'employees', 'shifts']) {
    merged[part] = [...(demo[part] ?? []), ...(other[part] ?? [])];
  }
  await writeFile(both, JSON.stringify(merged));
  return both;
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'workforce-kit-kept-records-'));
  const seedFile = await writeSeeds();
  postgres = await startPostgresServer();
  const database = await postgres.createDatabase();
  // Started together on an empty database: migrated and seeded once.
  servers = await startReferenceServers(
    Array.from({ length: PROCESSES }, () => ({
      STORE: 'postgres',
      DATABASE_URL: database,
      SEED_FILE: seedFile,
      AUTH_MODE: 'jwt',
      AUTH_HS256_SECRET: secret,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_PER_15_MIN: '1000000',
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${MUTANT}`.trim(),
    })),
  );
  balancer = await startProxy(servers.map((server) => server.url));
}, 120_000);

afterAll(async () => {
  await balancer?.close();
  await Promise.all(servers.map((server) => server.stop()));
  await postgres?.destroy();
  await rm(folder, { recursive: true, force: true });
});

/** The concurrent group against the balancer, the target loaded with `seed`. */
const races = (seed: string, shrinkTimeLimitMs?: number) =>
  checkApiContract({
    target: balancer?.url ?? '',
    seed,
    auth,
    only: ['concurrent'],
    runs: RUNS,
    rngSeed: RNG_SEED,
    ...(shrinkTimeLimitMs === undefined ? {} : { shrinkTimeLimitMs }),
  });

describe(`${PROCESSES} processes keeping records, on one PostgreSQL server`, () => {
  it('pass the concurrent group: no answer decided from a record another process changed', async () => {
    const before = [...(balancer?.forwarded ?? [])];
    const report = await races(DEMO_SEED_FILE);
    expect(report.ok, formatReport(report)).toBe(true);
    expect(report.results.map((r) => [r.name, r.status, r.runs])).toEqual([
      ['concurrent.races', 'passed', RUNS],
    ]);
    expect(report.coverage.rules.linearizable).toBe(RUNS);
    // Each of the three served the run.
    for (const [i, count] of (balancer?.forwarded ?? []).entries()) {
      expect(count).toBeGreaterThan(before[i] ?? 0);
    }
  });

  it('fail it once a store answers a no-op or a refusal from a record kept (a mutant)', async () => {
    for (const server of servers) server.process.kill('SIGUSR2');
    await vi.waitFor(
      () => {
        for (const server of servers) expect(server.output()).toContain('stale answers on');
      },
      { timeout: 10_000, interval: 20 },
    );
    const report = await races(otherSeedFile, 0);
    expect(report.ok).toBe(false);
    // The history has no order: an answer (a no-op's 200, a refusal's 400) of a record's state
    // that another process's change had already replaced.
    expect(report.results.map((r) => [r.name, r.status, r.rule])).toEqual([
      ['concurrent.races', 'failed', 'linearizable'],
    ]);
  });
});
