// `pnpm bench`: the peer bench of issue 20. GET of a restaurant, and an archive/unarchive cycle,
// each with an HS256 JWT, against every row of http-rows.ts: the hand-written peers (bare
// Express, node:http and Fastify; Fastify by hand with its schemas and jose; openapi-backend;
// express-openapi-validator; bare Hono, bare Bun.serve and bare NestJS) and workforce-kit's
// reference server as users run it (its bin, its defaults, memory store) on Express (with and
// without metrics), Fastify, node:http, Hono (the fetch adapter) and NestJS (the NestJS module on
// Nest's Express platform), the fetch adapter on Bun.serve, and on
// PGlite (and a PostgreSQL server, BENCH_STORES). Method: the server under test on core 0
// (taskset), this process (autocannon, BENCH_CONNECTIONS connections) on core 1; every server
// measured twice, the second pass in the reverse order of the first (a drift of the machine's
// speed over the run falls alike on every row), each start warmed up, then GET and the cycle
// measured; ratios against bare Express of the same run; the targets checked. Results:
// stdout tables and .bench-results/http.json.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { seedToJson } from '@workforce-kit/seed-file/testing';
import autocannon, { type Request as CannonRequest } from 'autocannon';
import { databaseBetween, databaseSnapshot } from './database-snapshot.js';
import { benchSeed, benchToken, EMPLOYEES, employeeGuid, RESTAURANT_GUID } from './fixtures.js';
import {
  checkTargets,
  type HostRatio,
  hostRatios,
  printScenario,
  type Run,
  type Summary,
  summarise,
  type TargetResult,
} from './http-report.js';
import { rows as allRows, type Row, RowStarter } from './http-rows.js';
import { BODIES } from './peers/common.js';
import { cpuMicroseconds, pinLoadGenerator, pinned, stopAll } from './processes.js';
import {
  type BatchSizes,
  batchSizesBetween,
  checkStoreTargets,
  parseBatchSizes,
  printStores,
  STORE_ROWS,
  type StoreRun,
  summariseStores,
} from './store-report.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** The stores workforce-kit runs over besides memory: pglite (the default), postgres. */
const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').filter(Boolean);
/** The rows to run (ids of http-rows.ts), all by default; bare Express always runs. */
const ONLY = process.env.BENCH_ROWS?.split(',').filter(Boolean);
for (const store of STORES) {
  if (store !== 'pglite' && store !== 'postgres') {
    throw new Error(`BENCH_STORES: unknown store "${store}" (known: pglite, postgres)`);
  }
}
const ROWS = allRows(STORES).filter(
  (row) => ONLY === undefined || row.id === 'bare' || ONLY.includes(row.id),
);
if (ONLY !== undefined && ROWS.length !== new Set(['bare', ...ONLY]).size) {
  throw new Error(`BENCH_ROWS: unknown rows in "${ONLY.join(',')}"`);
}
if (CONNECTIONS * 2 > EMPLOYEES) {
  throw new Error(`BENCH_CONNECTIONS: at most ${EMPLOYEES / 2} (an employee per connection)`);
}

pinLoadGenerator();

const token = await benchToken();
const headers = {
  authorization: `Bearer ${token}`,
  'platform-restaurant-external-id': RESTAURANT_GUID,
};
const RESTAURANT_PATH = `/restaurants/v1/restaurants/${RESTAURANT_GUID}`;

/**
 * Each connection archives, then unarchives, an employee of its own: every request is a real
 * change (an archive of an archived employee, which a stopped warm-up can leave, is a 200 too).
 * The warm-up and the measured run use disjoint halves of the employees. The employee is set per
 * connection (autocannon's setupClient): a request's context starts afresh on every round.
 */
function cycle(firstEmployee: number): Pick<autocannon.Options, 'requests' | 'setupClient'> {
  let next = 0;
  const requests = (employee: string): CannonRequest[] => [
    { method: 'DELETE', path: `/labor/v1/employees/${employee}`, headers },
    {
      method: 'PUT',
      path: `/labor/v1/employees/${employee}/unarchive`,
      headers: { ...headers, 'content-type': 'application/json' },
    },
  ];
  return {
    requests: requests(employeeGuid(firstEmployee)),
    setupClient: (client) => client.setRequests(requests(employeeGuid(firstEmployee + next++))),
  };
}

const SCENARIOS = [
  {
    name: 'GET' as const,
    title: 'GET a restaurant',
    load: (): Pick<autocannon.Options, 'requests'> => ({
      requests: [{ method: 'GET', path: RESTAURANT_PATH, headers }],
    }),
  },
  {
    name: 'cycle' as const,
    title: 'archive/unarchive cycle (DELETE then PUT …/unarchive)',
    load: (warmUp: boolean) => cycle(warmUp ? EMPLOYEES / 2 : 0),
  },
];

/** The row answers the GET with the reference body: the rows do the same work. */
async function checkAnswer(row: Row, url: string): Promise<void> {
  const response = await fetch(url + RESTAURANT_PATH, { headers });
  const body: unknown = await response.json();
  if (response.status !== 200 || !isDeepStrictEqual(body, BODIES.restaurant)) {
    throw new Error(
      `${row.label} answers the GET with ${response.status} ${JSON.stringify(body).slice(0, 200)}, not the restaurant the bench expects`,
    );
  }
}

const runs: Run[] = [];
/** The store rows' cycles, at CONNECTIONS and at one connection, with their batch sizes. */
const storeRuns: StoreRun[] = [];
const ONE_CONNECTION = 'cycle, one connection';

/** The server's `workforce_kit_store_batch_size` now (undefined without a PostgreSQL store). */
async function batchSizesOf(url: string): Promise<BatchSizes | undefined> {
  const response = await fetch(`${url}/metrics`);
  return response.ok ? parseBatchSizes(await response.text()) : undefined;
}

/**
 * A run's requests for per-request figures of the database: those sent, not answered (those in
 * flight when the run stops were served, their statements counted).
 */
function sentBy(result: autocannon.Result): number {
  return (result.requests as { sent?: number }).sent ?? result.requests.total;
}

async function measureRow(starter: RowStarter, row: Row, pass: number): Promise<void> {
  const server = await starter.start(row);
  let failed = false;
  try {
    await checkAnswer(row, server.url);
    const storeRow = STORE_ROWS.includes(row.id);
    // The stores' rows also run the cycle at one connection: a change's latency with no batching.
    const scenarios = [
      ...SCENARIOS.map((scenario) => ({ ...scenario, connections: CONNECTIONS })),
      ...(storeRow
        ? [
            {
              name: ONE_CONNECTION,
              load: (warmUp: boolean) => cycle(warmUp ? 1 : 0),
              connections: 1,
            },
          ]
        : []),
    ];
    for (const scenario of scenarios) {
      const load = (warmUp: boolean) =>
        autocannon({
          url: server.url,
          connections: scenario.connections,
          duration: warmUp ? WARMUP_SECONDS : SECONDS,
          ...scenario.load(warmUp),
        });
      await load(true);
      const before = storeRow ? await batchSizesOf(server.url) : undefined;
      const { databaseUrl } = server;
      const databaseBefore =
        databaseUrl === undefined ? undefined : await databaseSnapshot(databaseUrl);
      const cpuBefore = await cpuMicroseconds(server.pid);
      const result = await load(false);
      const serverCpuUs = ((await cpuMicroseconds(server.pid)) - cpuBefore) / result.requests.total;
      if (storeRow) {
        storeRuns.push({
          scenario: scenario.name,
          row: row.id,
          requestsPerSecond: result.requests.average,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          meanMs: result.latency.average,
          serverCpuUs,
          batchSizes: batchSizesBetween(before, await batchSizesOf(server.url)),
          ...(databaseUrl === undefined || databaseBefore === undefined
            ? {}
            : databaseBetween(databaseBefore, await databaseSnapshot(databaseUrl), sentBy(result))),
        });
      }
      const run: Run = {
        scenario: scenario.name,
        row: row.id,
        pass,
        requestsPerSecond: result.requests.average,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        serverCpuUs,
        non2xx: result.non2xx,
        errors: result.errors,
        statusCodes: result.statusCodeStats as Record<string, { count: number }>,
      };
      runs.push(run);
      console.error(
        `pass ${pass + 1}, ${scenario.name}, ${row.label}: ${run.requestsPerSecond.toFixed(0)} req/s, p99 ${run.p99Ms} ms, server CPU ${run.serverCpuUs.toFixed(0)} µs/request`,
      );
      if (run.non2xx > 0 || run.errors > 0) {
        console.error(
          `  ${run.non2xx} non-2xx responses and ${run.errors} errors (status codes: ${JSON.stringify(run.statusCodes)})`,
        );
        failed = true;
      }
    }
  } finally {
    await server.stop();
  }
  // A server's log (a line per request at LOG_LEVEL=info) is kept only when a run of it failed.
  if (failed) {
    console.error(`  its log: ${server.logFile}`);
    process.exitCode = 1;
  } else {
    await rm(server.logFile, { force: true });
  }
}

const work = await mkdtemp(join(tmpdir(), 'workforce-kit-http-bench-'));
const seedFile = join(work, 'seed.json');
await writeFile(seedFile, JSON.stringify(seedToJson(benchSeed())));
const starter = new RowStarter(work, seedFile);

/** Stops every server; removes the work directory unless a run failed (its logs are there). */
async function cleanUp(): Promise<void> {
  await stopAll();
  await starter.close();
  if (process.exitCode === 1) console.error(`the servers' logs are kept in ${work}`);
  else await rm(work, { recursive: true, force: true });
}

// An interrupted bench stops what it started.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the servers`);
    void cleanUp().finally(() => process.exit(130));
  });
}

try {
  for (const pass of [0, 1]) {
    for (const row of pass === 0 ? ROWS : [...ROWS].reverse()) {
      await measureRow(starter, row, pass);
    }
  }
} catch (error) {
  // The servers' logs say what happened: kept.
  process.exitCode = 1;
  throw error;
} finally {
  await cleanUp();
}

const labels = new Map(ROWS.map((row) => [row.id, row.label]));
const summary: Summary[] = [];
const targets: TargetResult[] = [];
const ratios: HostRatio[] = [];
console.log(
  `\n${CONNECTIONS} connections; every server twice (the second pass in reverse order), ${SECONDS} s per run after ${WARMUP_SECONDS} s of warm-up; means of the two runs; × bare Express of this run; ${pinned ? 'server on core 0, load generator on core 1' : 'no CPU pinning (taskset missing or one core)'}. The workforce-kit rows are the bin with its defaults (LOG_LEVEL=info: a log line per request, to a file); the peers log nothing.`,
);
for (const scenario of SCENARIOS) {
  const rows = summarise(scenario.name, runs, labels);
  const met = checkTargets(scenario.name, rows);
  const beside = hostRatios(scenario.name, rows);
  summary.push(...rows);
  targets.push(...met);
  ratios.push(...beside);
  printScenario(scenario.title, rows, met, beside);
}
const stores = summariseStores(storeRuns, labels, {
  get: 'GET',
  cycle: 'cycle',
  oneConnection: ONE_CONNECTION,
});
const storeTargets = checkStoreTargets(stores);
if (stores.length > 1) printStores(stores, storeTargets, CONNECTIONS);
const inProcess = await allocationReport();
await mkdir(new URL('../.bench-results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('../.bench-results/http.json', import.meta.url),
  `${JSON.stringify(
    {
      settings: {
        seconds: SECONDS,
        warmUpSeconds: WARMUP_SECONDS,
        connections: CONNECTIONS,
        stores: STORES,
        pinned,
      },
      summary,
      targets,
      ratios,
      stores,
      storeTargets,
      runs,
      storeRuns,
      inProcess,
    },
    null,
    2,
  )}\n`,
);

/**
 * The in-process figures of `tsx alloc.ts`, which `pnpm bench` runs first (.bench-results/
 * alloc.json, when written in the last hour): printed again beside the HTTP tables, and kept in
 * http.json.
 */
async function allocationReport(): Promise<unknown> {
  let report: {
    date: string;
    results: { scenario: string; bytesPerRequest: number; cpuMicrosecondsPerRequest: number }[];
    budgets: Record<string, number>;
  };
  try {
    report = JSON.parse(
      await readFile(new URL('../.bench-results/alloc.json', import.meta.url), 'utf8'),
    );
  } catch {
    return undefined;
  }
  if (Date.now() - Date.parse(report.date) > 3_600_000) return undefined;
  console.log('\n### In process (api.handle, the reference server’s options, memory store)\n');
  console.log('| request | bytes allocated | budget | CPU µs |');
  console.log('|---|---:|---:|---:|');
  for (const { scenario, bytesPerRequest, cpuMicrosecondsPerRequest } of report.results) {
    const budget = report.budgets[scenario];
    const verdict =
      budget === undefined ? '–' : `${budget} (${bytesPerRequest <= budget ? 'met' : 'NOT met'})`;
    console.log(
      `| ${scenario} | ${Math.round(bytesPerRequest)} | ${verdict} | ${cpuMicrosecondsPerRequest.toFixed(1)} |`,
    );
  }
  return report;
}
