// `pnpm bench`: the full stack (auth + validation + core + a store) against a bare Express 5 route
// answering the same body, measured in the same run, for getRestaurant and an archive/unarchive
// cycle. The full stack runs over the memory store, and (BENCH_STORES) over PGlite and over a
// PostgreSQL server the bench starts itself. The server under test runs on one core (taskset,
// when there is one), the load generator on another; each full mode runs in pairs with a bare
// run beside it, over rounds, and the medians of the pairs' ratios are reported. Results: stdout
// tables and .bench-results/http.json.
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import autocannon, { type Request as CannonRequest, type Result } from 'autocannon';
import { SignJWT } from 'jose';
import { BENCH_SECRET, EMPLOYEES, employeeGuid, RESTAURANT_GUID } from './fixtures.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
/** Rounds per scenario; the modes alternate (order rotated each round), medians reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The stores the full stack runs over, besides memory. */
const STORES = (process.env.BENCH_STORES ?? 'pglite,postgres').split(',').filter(Boolean);
/** Whether to measure the Fastify plugin and the hand-written Fastify app it should beat. */
const FASTIFY = (process.env.BENCH_FASTIFY ?? 'true') === 'true';
for (const store of STORES) {
  if (store !== 'pglite' && store !== 'postgres') {
    throw new Error(`BENCH_STORES: unknown store "${store}" (known: pglite, postgres)`);
  }
}

const here = fileURLToPath(new URL('.', import.meta.url));
const pinned = availableParallelism() > 1 && spawnSync('taskset', ['--version']).status === 0;
// The load generator (this process) keeps to core 1; the server under test gets core 0.
if (pinned) spawnSync('taskset', ['-cp', '1', String(process.pid)]);

type Mode =
  | 'bare'
  | 'full'
  | 'node'
  | 'full-pglite'
  | 'full-postgres'
  | 'fastify'
  | 'fastify-reference';
const MODES: Mode[] = [
  'bare',
  'full',
  'node',
  ...STORES.map((store) => `full-${store}` as Mode),
  ...(FASTIFY ? (['fastify', 'fastify-reference'] as const) : []),
];
const LABELS: Record<Mode, string> = {
  bare: 'bare Express',
  full: 'Express adapter, memory',
  node: 'node:http adapter, memory',
  'full-pglite': 'Express adapter, PGlite',
  'full-postgres': 'Express adapter, PostgreSQL 15',
  fastify: 'Fastify adapter, memory',
  'fastify-reference': 'Fastify + schemas + jose (hand-written)',
};

let database: PostgresServer | undefined;

interface Target {
  readonly port: number;
  stop(): Promise<void>;
}

async function startServer(mode: Mode): Promise<Target> {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
  if (mode === 'full-postgres') {
    database ??= await startPostgresServer();
    env.DATABASE_URL = await database.createDatabase();
  }
  const pin = pinned ? ['taskset', '-c', '0'] : [];
  const [command = 'node', ...args] = [
    ...pin,
    process.execPath,
    '--import',
    'tsx',
    'server.ts',
    mode,
  ];
  const child = spawn(command, args, { cwd: here, stdio: ['ignore', 'pipe', 'inherit'], env });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    child.stdout.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).port));
  });
  return {
    port,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The employees a run may use. The warm-up and the measured run use disjoint halves: a warm-up
 * stopped between an archive and its unarchive leaves that employee archived.
 */
const pool = { start: 0, size: EMPLOYEES / 2, next: 0 };

interface Scenario {
  readonly name: string;
  readonly requests: (token: string) => CannonRequest[];
}

const scenarios: Scenario[] = [
  {
    name: 'getRestaurant',
    requests: (token) => [
      {
        method: 'GET',
        path: `/restaurants/v1/restaurants/${RESTAURANT_GUID}`,
        headers: {
          authorization: `Bearer ${token}`,
          'platform-restaurant-external-id': RESTAURANT_GUID,
        },
      },
    ],
  },
  {
    // Each connection archives, then unarchives, its own employee: every request is a real change.
    name: 'archive/unarchive cycle',
    requests: (token) => {
      const headers = {
        authorization: `Bearer ${token}`,
        'platform-restaurant-external-id': RESTAURANT_GUID,
      };
      // autocannon keeps one context object per connection.
      const employeeOf = (context: object) => {
        const connection = context as { employee?: string };
        connection.employee ??= employeeGuid(pool.start + (pool.next++ % pool.size));
        return connection.employee;
      };
      return [
        {
          method: 'DELETE',
          headers,
          setupRequest: (req, context) => ({
            ...req,
            path: `/labor/v1/employees/${employeeOf(context)}`,
          }),
        },
        {
          method: 'PUT',
          headers: { ...headers, 'content-type': 'application/json' },
          setupRequest: (req, context) => ({
            ...req,
            path: `/labor/v1/employees/${employeeOf(context)}/unarchive`,
          }),
        },
      ];
    },
  },
];

function run(port: number, requests: CannonRequest[], duration: number): Promise<Result> {
  return autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration,
    requests,
  });
}

interface Measurement {
  readonly scenario: string;
  readonly mode: Mode;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly statusCodes: Record<string, { count: number }>;
}

async function measure(scenario: Scenario, mode: Mode, token: string): Promise<Measurement> {
  const target = await startServer(mode);
  try {
    Object.assign(pool, { start: EMPLOYEES / 2, next: 0 });
    await run(target.port, scenario.requests(token), WARMUP_SECONDS);
    Object.assign(pool, { start: 0, next: 0 });
    const result = await run(target.port, scenario.requests(token), SECONDS);
    return {
      scenario: scenario.name,
      mode,
      requestsPerSecond: result.requests.average,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      non2xx: result.non2xx,
      errors: result.errors,
      statusCodes: result.statusCodeStats as Record<string, { count: number }>,
    };
  } finally {
    await target.stop();
  }
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

const token = await new SignJWT({
  scope: 'labor.employees:write labor.shifts:write restaurants:read',
  restaurants: [RESTAURANT_GUID],
})
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('1h')
  .sign(new TextEncoder().encode(BENCH_SECRET));

const runs: Measurement[] = [];
const summary: Record<string, unknown>[] = [];
/** The full-stack modes; each is measured in pairs with a bare run next to it. */
const FULL_MODES = MODES.filter((mode) => mode !== 'bare');

async function measureChecked(scenario: Scenario, mode: Mode): Promise<Measurement> {
  const measurement = await measure(scenario, mode, token);
  runs.push(measurement);
  if (measurement.non2xx > 0 || measurement.errors > 0) {
    console.error(
      `${scenario.name} (${mode}): ${measurement.non2xx} non-2xx responses and ${measurement.errors} errors (status codes: ${JSON.stringify(measurement.statusCodes)})`,
    );
    process.exitCode = 1;
  }
  return measurement;
}

try {
  for (const scenario of scenarios) {
    // Each full mode is measured right next to a bare run (bare first in even rounds, second in
    // odd ones), and its ratio is taken within the pair: the VM's speed drifts over minutes, and
    // a ratio of runs far apart would measure the drift.
    const pairs = new Map<Mode, { bare: Measurement; full: Measurement }[]>(
      FULL_MODES.map((mode) => [mode, []]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      const shift = round % FULL_MODES.length;
      for (const mode of [...FULL_MODES.slice(shift), ...FULL_MODES.slice(0, shift)]) {
        const first = await measureChecked(scenario, round % 2 === 0 ? 'bare' : mode);
        const second = await measureChecked(scenario, round % 2 === 0 ? mode : 'bare');
        const [bare, full] = round % 2 === 0 ? [first, second] : [second, first];
        pairs.get(mode)?.push({ bare, full });
      }
    }
    const bareRuns = [...pairs.values()].flat().map((pair) => pair.bare);
    summary.push({
      scenario: scenario.name,
      mode: 'bare',
      requestsPerSecond: median(bareRuns.map((run) => run.requestsPerSecond)),
      ratio: 1,
      p50Ms: median(bareRuns.map((run) => run.p50Ms)),
      p99Ms: median(bareRuns.map((run) => run.p99Ms)),
      p99Ratio: 1,
    });
    for (const [mode, measured] of pairs) {
      const pick = (f: (pair: { bare: Measurement; full: Measurement }) => number) =>
        median(measured.map(f));
      summary.push({
        scenario: scenario.name,
        mode,
        requestsPerSecond: pick(({ full }) => full.requestsPerSecond),
        ratio: pick(({ bare, full }) => full.requestsPerSecond / bare.requestsPerSecond),
        p50Ms: pick(({ full }) => full.p50Ms),
        p99Ms: pick(({ full }) => full.p99Ms),
        p99Ratio: pick(({ bare, full }) => full.p99Ms / bare.p99Ms),
      });
    }
  }
} finally {
  await database?.destroy();
}

const placement = pinned
  ? 'server on core 0, load generator on core 1'
  : 'no CPU pinning (taskset missing or one core)';
console.log(
  `\n${CONNECTIONS} connections, ${SECONDS} s per run after ${WARMUP_SECONDS} s of warm-up, ${ROUNDS} rounds of a bare and a full run side by side per store (medians; × bare within each pair); ${placement}.\n`,
);
console.log('| scenario | stack | req/s | × bare | p50 / p99 ms | p99 × bare |');
console.log('|---|---|---|---|---|---|');
for (const row of summary as {
  scenario: string;
  mode: Mode;
  requestsPerSecond: number;
  ratio: number;
  p50Ms: number;
  p99Ms: number;
  p99Ratio: number;
}[]) {
  console.log(
    `| ${row.scenario} | ${LABELS[row.mode]} | ${row.requestsPerSecond.toFixed(0)} | ${row.ratio.toFixed(2)} | ${row.p50Ms} / ${row.p99Ms} | ${row.p99Ratio.toFixed(2)} |`,
  );
}
await mkdir(new URL('../.bench-results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('../.bench-results/http.json', import.meta.url),
  JSON.stringify({ summary, runs }, null, 2),
);
