// `pnpm bench`: the full stack (auth + validation + core + memory store) against a bare Express 5
// route answering the same body, measured in the same run, for getRestaurant and for an
// archive/unarchive cycle. The server runs on one core (taskset, when there is one), the load
// generator on another. Results go to stdout as a table and to .bench-results/http.json.
import { spawn, spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import autocannon, { type Request as CannonRequest, type Result } from 'autocannon';
import { SignJWT } from 'jose';
import { BENCH_SECRET, EMPLOYEES, employeeGuid, RESTAURANT_GUID } from './fixtures.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** Rounds per scenario; bare and full alternate (order flipped each round), medians reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const here = fileURLToPath(new URL('.', import.meta.url));
const pinned = availableParallelism() > 1 && spawnSync('taskset', ['--version']).status === 0;
// The load generator (this process) keeps to core 1; the server under test gets core 0.
if (pinned) spawnSync('taskset', ['-cp', '1', String(process.pid)]);

interface Target {
  readonly port: number;
  stop(): Promise<void>;
}

async function startServer(mode: 'full' | 'bare'): Promise<Target> {
  const pin = pinned ? ['taskset', '-c', '0'] : [];
  const [command = 'node', ...args] = [
    ...pin,
    process.execPath,
    '--import',
    'tsx',
    'server.ts',
    mode,
  ];
  const child = spawn(command, args, {
    cwd: here,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
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
/**
 * The employees a run may use. The warm-up and the measured run use disjoint halves: a warm-up
 * stopped between an archive and its unarchive leaves that employee archived.
 */
const pool = { start: 0, size: EMPLOYEES / 2, next: 0 };

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
  readonly mode: 'full' | 'bare';
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly statusCodes: Record<string, { count: number }>;
}

async function measure(
  scenario: Scenario,
  mode: 'full' | 'bare',
  token: string,
): Promise<Measurement> {
  Object.assign(pool, { start: EMPLOYEES / 2, next: 0 });
  const target = await startServer(mode);
  try {
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

const token = await new SignJWT({
  scope: 'labor.employees:write labor.shifts:write restaurants:read',
  restaurants: [RESTAURANT_GUID],
})
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('1h')
  .sign(new TextEncoder().encode(BENCH_SECRET));

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

const rows: string[] = [];
const results: Measurement[] = [];
const summary: Record<string, unknown>[] = [];
for (const scenario of scenarios) {
  const rounds: { bare: Measurement; full: Measurement }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['bare', 'full'] as const) : (['full', 'bare'] as const);
    const measured: Partial<Record<'bare' | 'full', Measurement>> = {};
    for (const mode of order) measured[mode] = await measure(scenario, mode, token);
    const { bare, full } = measured as { bare: Measurement; full: Measurement };
    rounds.push({ bare, full });
    results.push(bare, full);
    for (const run of [bare, full]) {
      if (run.non2xx > 0 || run.errors > 0) {
        console.error(
          `${scenario.name} (${run.mode}): ${run.non2xx} non-2xx responses and ${run.errors} errors (status codes: ${JSON.stringify(run.statusCodes)})`,
        );
        process.exitCode = 1;
      }
    }
  }
  const m = (pick: (round: { bare: Measurement; full: Measurement }) => number) =>
    median(rounds.map(pick));
  const row = {
    scenario: scenario.name,
    bareRps: m((r) => r.bare.requestsPerSecond),
    fullRps: m((r) => r.full.requestsPerSecond),
    ratio: m((r) => r.full.requestsPerSecond / r.bare.requestsPerSecond),
    bareP50: m((r) => r.bare.p50Ms),
    bareP99: m((r) => r.bare.p99Ms),
    fullP50: m((r) => r.full.p50Ms),
    fullP99: m((r) => r.full.p99Ms),
    p99Ratio: m((r) => r.full.p99Ms / r.bare.p99Ms),
  };
  summary.push(row);
  rows.push(
    `| ${row.scenario} | ${row.bareRps.toFixed(0)} | ${row.fullRps.toFixed(0)} | ${row.ratio.toFixed(2)} | ${row.bareP50} / ${row.bareP99} | ${row.fullP50} / ${row.fullP99} | ${row.p99Ratio.toFixed(2)} |`,
  );
}

const placement = pinned
  ? 'server on core 0, load generator on core 1'
  : 'no CPU pinning (taskset missing or one core)';
console.log(
  `\n${CONNECTIONS} connections, ${SECONDS} s per run after ${WARMUP_SECONDS} s of warm-up, ${ROUNDS} alternating rounds (medians); ${placement}.\n`,
);
console.log(
  '| scenario | bare req/s | full req/s | full/bare | bare p50/p99 ms | full p50/p99 ms | p99 full/bare |',
);
console.log('|---|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
await mkdir(new URL('../.bench-results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('../.bench-results/http.json', import.meta.url),
  JSON.stringify({ summary, runs: results }, null, 2),
);
