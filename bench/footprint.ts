// `pnpm --filter @workforce-kit/bench run footprint`: the reference server as a new user meets it
// (the server package's bin, run with no Node option as an installed bin and `npm start` run it, its defaults but
// the rate limits raised so the load is not refused), for each store: start-up to `/readyz` (PGlite on a new directory, then
// again on it), resident memory idle and after a GET load, and GET throughput beside a bare
// Express route measured in the same run. Linux (reads /proc). Results: a stdout table and
// .bench-results/footprint.json.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import autocannon from 'autocannon';
import { SignJWT } from 'jose';
import { BENCH_RATE_LIMITS, BENCH_SECRET, RESTAURANT_GUID } from './fixtures.js';

const LOAD_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_FOOTPRINT_CONNECTIONS ?? 50);
const IDLE_MS = 2000;
const here = fileURLToPath(new URL('.', import.meta.url));
/** The server on core 0 (taskset, when there is one), the load generator on the others. */
const pin = spawnSync('taskset', ['-c', '0', 'true']).status === 0 ? ['taskset', '-c', '0'] : [];
const node = (...args: string[]): [string, string[]] => {
  const [command = process.execPath, ...rest] = [...pin, process.execPath, ...args];
  return [command, rest];
};
const cli = fileURLToPath(new URL('../packages/server/dist/cli.js', import.meta.url));
/** The demo seed's restaurant and one of its clients (the development login). */
const DEMO_RESTAURANT = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const DEMO_CLIENT = {
  clientId: 'harbor-street-integration',
  clientSecret: 'demo-secret-harbor-street-7d3f9a',
};

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(),
      );
    });
  });
}

async function memoryOf(pid: number): Promise<{ rssMb: number; peakMb: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
}

async function until(check: () => Promise<boolean>, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`);
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

interface Row {
  readonly store: string;
  readonly startMs: number;
  readonly idleMb: number;
  readonly loadedMb: number;
  readonly peakMb: number;
  readonly requestsPerSecond: number;
  readonly ratio: number;
}

async function getLoad(port: number, headers: Record<string, string>, path: string) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections: CONNECTIONS,
    duration: LOAD_SECONDS,
    requests: [{ method: 'GET', path, headers }],
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${result.non2xx} non-2xx and ${result.errors} errors under load`);
  }
  return result.requests.average;
}

/** The bare Express route of the HTTP bench (bench/server.ts), for the ratio. */
async function bareThroughput(): Promise<number> {
  const child = spawn(...node('--import', 'tsx', 'server.ts', 'bare'), {
    cwd: here,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production' },
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}`)));
    child.stdout?.once('data', (chunk: Buffer) => resolve(JSON.parse(chunk.toString()).port));
  });
  const token = await new SignJWT({ scope: 'restaurants:read', restaurants: [RESTAURANT_GUID] })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(BENCH_SECRET));
  try {
    return await getLoad(
      port,
      { authorization: `Bearer ${token}`, 'platform-restaurant-external-id': RESTAURANT_GUID },
      `/restaurants/v1/restaurants/${RESTAURANT_GUID}`,
    );
  } finally {
    await stop(child);
  }
}

async function measure(store: string, env: NodeJS.ProcessEnv, bare: number): Promise<Row> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(...node(cli), {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      ...BENCH_RATE_LIMITS,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await until(async () => (await fetch(`${url}/readyz`)).ok, child);
    const startMs = Math.round(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const pid = child.pid ?? 0;
    const idle = await memoryOf(pid);
    const login = await fetch(`${url}/authentication/v1/authentication/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...DEMO_CLIENT, userAccessType: 'MACHINE_CLIENT' }),
    });
    const token = ((await login.json()) as { token: { accessToken: string } }).token.accessToken;
    const requestsPerSecond = await getLoad(
      port,
      { authorization: `Bearer ${token}`, 'platform-restaurant-external-id': DEMO_RESTAURANT },
      `/restaurants/v1/restaurants/${DEMO_RESTAURANT}`,
    );
    const loaded = await memoryOf(pid);
    return {
      store,
      startMs,
      idleMb: idle.rssMb,
      loadedMb: loaded.rssMb,
      peakMb: loaded.peakMb,
      requestsPerSecond: Math.round(requestsPerSecond),
      ratio: requestsPerSecond / bare,
    };
  } finally {
    await stop(child);
  }
}

const work = await mkdtemp(join(tmpdir(), 'workforce-kit-footprint-'));
let database: PostgresServer | undefined;
try {
  const bare = await bareThroughput();
  const pgliteDir = join(work, 'pglite');
  const rows: Row[] = [
    await measure('PGlite, new directory', { STORE: 'pglite', PGLITE_DIR: pgliteDir }, bare),
    await measure('PGlite, second start', { STORE: 'pglite', PGLITE_DIR: pgliteDir }, bare),
    await measure('memory', { STORE: 'memory' }, bare),
  ];
  if (process.env.BENCH_STORES?.split(',').includes('postgres') !== false) {
    database = await startPostgresServer();
    const DATABASE_URL = await database.createDatabase();
    rows.push(await measure('PostgreSQL 15 server', { STORE: 'postgres', DATABASE_URL }, bare));
  }
  console.log(`\nbare Express GET: ${Math.round(bare)} req/s (${CONNECTIONS} connections)\n`);
  console.log(
    '| store | start to /readyz ms | RSS idle MB | RSS after GET load MB | peak MB | GET req/s | × bare |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(
      `| ${row.store} | ${row.startMs} | ${row.idleMb} | ${row.loadedMb} | ${row.peakMb} | ${row.requestsPerSecond} | ${row.ratio.toFixed(2)} |`,
    );
  }
  await mkdir(new URL('../.bench-results/', import.meta.url), { recursive: true });
  await writeFile(
    new URL('../.bench-results/footprint.json', import.meta.url),
    `${JSON.stringify({ bare, connections: CONNECTIONS, rows }, null, 2)}\n`,
  );
} finally {
  await database?.destroy();
  await rm(work, { recursive: true, force: true });
}
