// `pnpm --filter @workforce-kit/bench run webhooks`: the outbox relay's webhooks, delivered by one
// and by three reference-server processes (STORE=postgres, WEBHOOK_URLS; the built `workforce-kit`)
// from one PostgreSQL server (started here) to a receiver on loopback in this process, which
// answers 204 at once. Changes are written in this process through the core's use cases over the
// PostgreSQL store (archive and unarchive of employees, one writer per employee), so that the
// write throughput beside the delivery figures is the store's, not HTTP's. For each number of
// processes, on a fresh database:
//
// - backlog: WEBHOOK_BACKLOG changes written with no relay running (the write throughput), then
//   the processes started: events delivered per second, from the first receipt to the last;
// - paced: the processes running, WEBHOOK_PACED_RATE changes a second for WEBHOOK_SECONDS:
//   commit-to-receipt latency (the write's promise resolved → the receiver got the POST);
// - full load: the processes running, WEBHOOK_WRITERS writers as fast as they go for
//   WEBHOOK_SECONDS: the write throughput with the relays at work, the deliveries' throughput
//   over the same time, and the latency under that load.
//
// Results: a table on stdout and .bench-results/webhooks.json.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  archiveEmployee,
  type Guid,
  unarchiveEmployee,
  type WorkforceStore,
} from '@workforce-kit/core';
import { createPostgresStore, registerOutboxDestinations } from '@workforce-kit/postgres';
import { startPostgresServer } from '@workforce-kit/postgres/testing';
import pg from 'pg';
import { benchSeed, EMPLOYEES, employeeGuid, RESTAURANT_GUID } from './fixtures.js';

const PROCESSES = (process.env.WEBHOOK_PROCESSES ?? '1,3').split(',').map(Number);
const BACKLOG = Number(process.env.WEBHOOK_BACKLOG ?? 10_000);
const PACED_RATE = Number(process.env.WEBHOOK_PACED_RATE ?? 100);
const SECONDS = Number(process.env.WEBHOOK_SECONDS ?? 10);
const WRITERS = Math.min(EMPLOYEES, Number(process.env.WEBHOOK_WRITERS ?? 16));

const cli = fileURLToPath(new URL('../packages/server/dist/cli.js', import.meta.url));
const secret = `whsec_${randomBytes(32).toString('base64')}`;

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The receiver: the first arrival of each webhook-id, and how many arrived in all. */
const receipts = new Map<string, number>();
let arrivals = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const at = performance.now();
    arrivals += 1;
    const id = String(req.headers['webhook-id']);
    if (!receipts.has(id)) receipts.set(id, at);
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

/** When each change's write resolved, by its event id. */
const commits = new Map<string, number>();

/** The employees, each owned by one writer: its archived state as last written. */
const archived = new Map<Guid, boolean>(
  Array.from({ length: EMPLOYEES }, (_, i) => [employeeGuid(i), false]),
);

async function toggle(store: WorkforceStore, employee: Guid): Promise<void> {
  const deps = {
    employees: store.employees,
    shifts: store.shifts,
    restaurants: store.restaurants,
    clock: { now: () => new Date() },
    ids: { newId: () => randomUUID() },
  };
  const command = { restaurant: RESTAURANT_GUID, requestId: 'bench' };
  const result = archived.get(employee)
    ? await unarchiveEmployee(deps, { ...command, employee })
    : await archiveEmployee(deps, { ...command, employee: { kind: 'guid', guid: employee } });
  const at = performance.now();
  if (result.isErr()) throw new Error(`the write failed: ${JSON.stringify(result.error)}`);
  archived.set(employee, !archived.get(employee));
  for (const event of result.value.events) commits.set(event.eventId, at);
}

/** Writers at full speed until `until()` says stop; each on its own employees. */
async function writeFlat(store: WorkforceStore, until: (written: number) => boolean) {
  let written = 0;
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let i = 0; !until(written); i++) {
        const employee = employeeGuid(w + WRITERS * (i % Math.floor(EMPLOYEES / WRITERS)));
        await toggle(store, employee);
        written += 1;
      }
    }),
  );
  return written;
}

/** `rate` changes a second for `seconds`, each on the next employee, not waiting for the last. */
async function writePaced(store: WorkforceStore, rate: number, seconds: number) {
  const writes: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    writes.push(toggle(store, employeeGuid(i % EMPLOYEES)));
    // One writer per employee: wait for the previous write of the same employee.
    if (writes.length >= EMPLOYEES) await writes[writes.length - EMPLOYEES];
  }
  await Promise.all(writes);
}

interface ServerProcess {
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

function startServerProcess(databaseUrl: string): Promise<ServerProcess> {
  const child = spawn(process.execPath, [cli], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      STORE: 'postgres',
      DATABASE_URL: databaseUrl,
      WEBHOOK_URLS: hookUrl,
      WEBHOOK_SECRET: secret,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('listening on')) {
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve({
          child,
          stop: () =>
            new Promise((done) => {
              child.removeAllListeners('exit');
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
  });
}

async function waitForReceipts(ids: Iterable<string>, what: string): Promise<number> {
  const wanted = [...ids];
  const deadline = performance.now() + 300_000;
  while (wanted.some((id) => !receipts.has(id))) {
    if (performance.now() > deadline) throw new Error(`not every ${what} event was received`);
    await sleep(20);
  }
  return Math.max(...wanted.map((id) => receipts.get(id) ?? 0));
}

/** p50 and p99 of commit-to-receipt, in ms, of the changes since `from`. */
function latencies(ids: readonly string[]) {
  const sorted = ids
    .map((id) => (receipts.get(id) ?? Number.NaN) - (commits.get(id) ?? Number.NaN))
    .sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99) };
}

function newSince(before: ReadonlySet<string>): string[] {
  return [...commits.keys()].filter((id) => !before.has(id));
}

const database = await startPostgresServer();
const rows: Record<string, number>[] = [];
try {
  for (const processes of PROCESSES) {
    const pool = new pg.Pool({ connectionString: await database.createDatabase(), max: WRITERS });
    const store = await createPostgresStore({ client: pool });
    (await store.seed(benchSeed()))._unsafeUnwrap();
    for (const employee of archived.keys()) archived.set(employee, false);
    await registerOutboxDestinations(pool, [hookUrl]);
    let servers: ServerProcess[] = [];
    try {
      // Backlog: written with no relay running, then drained.
      let before = new Set(commits.keys());
      let started = performance.now();
      await writeFlat(store, (written) => written >= BACKLOG);
      const backlogWriteSeconds = (performance.now() - started) / 1000;
      const backlog = newSince(before);
      servers = await Promise.all(
        Array.from({ length: processes }, () =>
          startServerProcess(pool.options.connectionString ?? ''),
        ),
      );
      const lastReceipt = await waitForReceipts(backlog, 'backlog');
      const firstReceipt = Math.min(...backlog.map((id) => receipts.get(id) ?? Infinity));
      const drainPerSecond = backlog.length / ((lastReceipt - firstReceipt) / 1000);

      // Paced: latency with the relays idle between changes.
      await sleep(1000);
      before = new Set(commits.keys());
      await writePaced(store, PACED_RATE, SECONDS);
      const paced = newSince(before);
      await waitForReceipts(paced, 'paced');
      const pacedLatency = latencies(paced);

      // Full load: writers as fast as they go, the relays delivering meanwhile.
      before = new Set(commits.keys());
      const receivedBefore = receipts.size;
      started = performance.now();
      const end = started + SECONDS * 1000;
      await writeFlat(store, () => performance.now() >= end);
      const loadSeconds = (performance.now() - started) / 1000;
      const deliveredDuringLoad = receipts.size - receivedBefore;
      const loaded = newSince(before);
      await waitForReceipts(loaded, 'full-load');
      const loadLatency = latencies(loaded);

      rows.push({
        processes,
        backlogWritesPerSecond: backlog.length / backlogWriteSeconds,
        drainPerSecond,
        pacedP50Ms: pacedLatency.p50Ms,
        pacedP99Ms: pacedLatency.p99Ms,
        loadWritesPerSecond: loaded.length / loadSeconds,
        loadDeliveredPerSecond: deliveredDuringLoad / loadSeconds,
        loadP50Ms: loadLatency.p50Ms,
        loadP99Ms: loadLatency.p99Ms,
      });
    } finally {
      await Promise.all(servers.map((server) => server.stop()));
      await store.close();
      await pool.end();
    }
  }
} finally {
  await database.destroy();
  receiver.close();
}

const duplicates = arrivals - receipts.size;
console.log(
  `\nPostgreSQL 15 (started here), ${WRITERS} writers in this process through the use cases; a receiver on loopback answering 204; backlog of ${BACKLOG}, paced at ${PACED_RATE} changes/s for ${SECONDS} s, full load for ${SECONDS} s. ${arrivals} deliveries, ${duplicates} of them repeated.\n`,
);
console.log(
  '| processes | writes/s, no relay | backlog delivered/s | commit→receipt p50 / p99 ms, paced | writes/s, relays on | delivered/s meanwhile | commit→receipt p50 / p99 ms, full load |',
);
console.log('|---|---|---|---|---|---|---|');
const ms = (n: number | undefined) =>
  n === undefined ? '?' : n < 10 ? n.toFixed(1) : n.toFixed(0);
for (const row of rows) {
  console.log(
    `| ${row.processes} | ${row.backlogWritesPerSecond?.toFixed(0)} | ${row.drainPerSecond?.toFixed(0)} | ${ms(row.pacedP50Ms)} / ${ms(row.pacedP99Ms)} | ${row.loadWritesPerSecond?.toFixed(0)} | ${row.loadDeliveredPerSecond?.toFixed(0)} | ${ms(row.loadP50Ms)} / ${ms(row.loadP99Ms)} |`,
  );
}
await mkdir(new URL('../.bench-results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('../.bench-results/webhooks.json', import.meta.url),
  JSON.stringify({ rows, arrivals, duplicates }, null, 2),
);
