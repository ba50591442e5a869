// No false alarms: the concurrent group (100 cases) passes against correct deployments where
// changes truly overlap, and reads an answer that does not say whether a change happened as such.
// The reference server as a user starts it (`workforce-kit`, jwt auth from an HS256 secret, a seed
// file, rate limits raised): on memory and on PGlite, each behind a proxy that holds each request
// 1 to 4 ms (a network, so that a case's branches reach the server at once, whatever the kit's
// pace); and two processes on one PostgreSQL server behind a round-robin balancer, reached
// directly and through the same delay. The memory server's run is the command's
// (`--only concurrent`, with a JSON and an HTML report). A server cannot be reset, so the pair serves two runs from one start:
// it is loaded with the demo seed and a copy of it under other GUIDs, and each run knows one of
// the two (the group only touches the records its seed names). Then an in-process target that
// answers some changes 503 after making them, and others 503 without: read as indeterminate, the
// history has an order every time.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ConditionalWrite,
  type MaybeAsync,
  type StorageUnavailable,
  storageUnavailable,
  toResultAsync,
} from '@workforce-kit/core';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import { errAsync, type Result, type ResultAsync } from 'neverthrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkApiContract, formatReport, type Report } from '../src/index.js';
import { type HttpProxy, startProxy } from './support/http-proxy.js';
import {
  kitServerEnv,
  runKit,
  type ServerProcess,
  startReferenceServer,
  targetArgs,
} from './support/processes.js';
import {
  AUDIENCE,
  AUTH,
  DEMO_SEED_FILE,
  demoSeedJson,
  ISSUER,
  routerTarget,
} from './support/router-target.js';

const RUNS = 100;
const RNG_SEED = 33;
const secret = randomBytes(32).toString('hex');
const auth = { hs256Secret: secret, issuer: ISSUER, audience: AUDIENCE };
/** 1 to 4 ms, in turn: each request of a case held a little differently. */
const jitter = (n: number) => 1 + (n % 4);

let folder: string;
let otherSeedFile: string;
let postgres: PostgresServer | undefined;
const servers: ServerProcess[] = [];
const proxies: HttpProxy[] = [];
let memoryProxied: HttpProxy;
let pgliteProxied: HttpProxy;
let balanced: HttpProxy;
let balancedProxied: HttpProxy;

/** The demo seed under other GUIDs: the same records, which a run with the demo seed never names. */
function otherSeed(): Record<string, unknown> {
  const { restaurants, employees, shifts } = demoSeedJson as Record<string, { guid: string }[]>;
  let text = JSON.stringify({ restaurants, employees, shifts });
  for (const { guid } of [...(restaurants ?? []), ...(employees ?? []), ...(shifts ?? [])]) {
    text = text.replaceAll(guid, randomUUID());
  }
  return JSON.parse(text) as Record<string, unknown>;
}

const serverEnv = kitServerEnv(secret);

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'workforce-kit-concurrent-'));
  const other = otherSeed();
  otherSeedFile = join(folder, 'other-seed.json');
  await writeFile(otherSeedFile, JSON.stringify(other));
  const both = join(folder, 'both-seeds.json');
  const demo = demoSeedJson as Record<string, unknown[]>;
  await writeFile(
    both,
    JSON.stringify({
      ...demo,
      restaurants: [...(demo.restaurants ?? []), ...(other.restaurants as unknown[])],
      employees: [...(demo.employees ?? []), ...(other.employees as unknown[])],
      shifts: [...(demo.shifts ?? []), ...(other.shifts as unknown[])],
    }),
  );
  postgres = await startPostgresServer();
  const database = await postgres.createDatabase();
  const started = await Promise.allSettled([
    startReferenceServer({ ...serverEnv, STORE: 'memory', SEED_FILE: DEMO_SEED_FILE }),
    startReferenceServer({
      ...serverEnv,
      STORE: 'pglite',
      PGLITE_DIR: join(folder, 'pglite'),
      SEED_FILE: DEMO_SEED_FILE,
    }),
    // Started together on an empty database: migrated and seeded once.
    ...[1, 2].map(() =>
      startReferenceServer({
        ...serverEnv,
        STORE: 'postgres',
        DATABASE_URL: database,
        SEED_FILE: both,
      }),
    ),
  ]);
  for (const each of started) if (each.status === 'fulfilled') servers.push(each.value);
  const failed = started.find((each) => each.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  const [memory, pglite, first, second] = servers.map((s) => s.url) as [
    string,
    string,
    string,
    string,
  ];
  memoryProxied = await startProxy([memory], jitter);
  pgliteProxied = await startProxy([pglite], jitter);
  balanced = await startProxy([first, second]);
  balancedProxied = await startProxy([first, second], jitter);
  proxies.push(memoryProxied, pgliteProxied, balanced, balancedProxied);
}, 120_000);

afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  await Promise.all(servers.map((server) => server.stop()));
  await postgres?.destroy();
  await rm(folder, { recursive: true, force: true });
});

/** The concurrent group, 100 cases, against `url` loaded with `seed` (a seed file). */
const races = (url: string, seed: string): Promise<Report> =>
  checkApiContract({
    target: url,
    seed,
    auth,
    only: ['concurrent'],
    runs: RUNS,
    rngSeed: RNG_SEED,
  });

/** The report passed: one property, concurrent.races, its 100 cases kept. */
function expectPassed(report: Report): void {
  expect(report.ok, formatReport(report)).toBe(true);
  expect(report.results.map((r) => [r.name, r.status, r.runs])).toEqual([
    ['concurrent.races', 'passed', RUNS],
  ]);
  expect(report.coverage.rules.linearizable).toBe(RUNS);
}

describe('the concurrent group finds no race where there is none', () => {
  it('on the reference server over memory, behind a proxy that holds each request 1 to 4 ms (the command, --only concurrent)', async () => {
    const file = join(folder, 'memory.json');
    const page = join(folder, 'memory.html');
    const run = await runKit([
      ...targetArgs(memoryProxied.url, DEMO_SEED_FILE, secret),
      '--only',
      'concurrent',
      '--runs',
      String(RUNS),
      '--rng-seed',
      String(RNG_SEED),
      '--report',
      file,
      '--report',
      page,
    ]);
    expect(run.stdout.trim().split('\n').at(-1), run.stdout + run.stderr).toBe(
      '1 passed, 0 failed',
    );
    expect(run.code).toBe(0);
    expect(memoryProxied.mostUnderWay()).toBeGreaterThanOrEqual(3);
    expectPassed(JSON.parse(await readFile(file, 'utf8')) as Report);
    expect(await readFile(page, 'utf8')).toContain(
      '<title>workforce-kit contract report: 1 passed, 0 failed</title>',
    );
    console.info(`memory, proxied: ${run.ms} ms`);
  });

  it('on the reference server over PGlite, behind the same proxy', async () => {
    expectPassed(await races(pgliteProxied.url, DEMO_SEED_FILE));
    // The branches were under way at once: the proxy had up to four of them.
    expect(pgliteProxied.mostUnderWay()).toBeGreaterThanOrEqual(3);
  });

  it('on two server processes sharing one PostgreSQL server, behind a round-robin balancer', async () => {
    const before = [...balanced.forwarded];
    expectPassed(await races(balanced.url, DEMO_SEED_FILE));
    // Both processes served the run.
    for (const [i, count] of balanced.forwarded.entries())
      expect(count).toBeGreaterThan(before[i] ?? 0);
  });

  it('on the same two processes, behind the balancer and the proxy that holds each request', async () => {
    expectPassed(await races(balancedProxied.url, otherSeedFile));
    expect(balancedProxied.forwarded.every((count) => count > 0)).toBe(true);
    expect(balancedProxied.mostUnderWay()).toBeGreaterThanOrEqual(3);
  });
});

describe('an answer that does not say whether the change happened', () => {
  it('is read as indeterminate: a target that answers some changes 503 after making them, others 503 without, passes', async () => {
    // Of the writes the store is asked for, one in four is made and then reported lost (the
    // database's acknowledgement never came), one in eight refused: both answered 503.
    let writes = 0;
    const flaky =
      <T, E>(write: (change: ConditionalWrite<T>) => MaybeAsync<Result<T, E>>) =>
      (change: ConditionalWrite<T>): ResultAsync<T, E | StorageUnavailable> => {
        const n = writes++;
        if (n % 4 === 1) {
          const lost = storageUnavailable('write', 'the acknowledgement was lost');
          return toResultAsync(write(change)).andThen(() => errAsync(lost));
        }
        if (n % 8 === 3) return errAsync(storageUnavailable('write', 'refused'));
        return toResultAsync(write(change));
      };
    const target = await routerTarget({
      store: (store) => ({
        ...store,
        employees: { ...store.employees, write: flaky((c) => store.employees.write(c)) },
        shifts: { ...store.shifts, write: flaky((c) => store.shifts.write(c)) },
      }),
    });
    // One app, never reset: each case starts from every state the last one may have left.
    const report = await checkApiContract({
      target: target.handler,
      seed: demoSeedJson,
      auth: AUTH,
      only: ['concurrent'],
      runs: RUNS,
      rngSeed: RNG_SEED,
    });
    expectPassed(report);
    const unavailable = Object.values(report.coverage.operations).reduce(
      (n, statuses) => n + (statuses['503'] ?? 0),
      0,
    );
    expect(unavailable).toBeGreaterThan(RUNS / 4);
  });
});
