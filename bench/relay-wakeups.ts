// `pnpm --filter @workforce-kit/bench run wakeups`: what a change costs the relays when there are
// several, at a paced rate: how many claims each change makes (and how many of them find nothing),
// and the CPU the database and the relays spend per change. One PostgreSQL server (started here);
// RELAYS_COUNTS relays (default 1 and 4), each over its own pg.Pool as a process would, with the
// server's webhook deliverer (signed POSTs) to a receiver on loopback answering 204; changes
// written through the store's use cases at WAKEUPS_RATE a second for WAKEUPS_SECONDS, one
// writer per employee. The claims are counted at each relay's pool; the database's CPU is read
// from /proc for every PostgreSQL process of the server (their connections held for the run).
//
// Results: a table on stdout and .bench-results/relay-wakeups.json.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { archiveEmployee, type Guid, unarchiveEmployee } from '@workforce-kit/core';
import {
  createOutboxRelay,
  createPostgresStore,
  type OutboxRelay,
  registerOutboxDestinations,
} from '@workforce-kit/postgres';
import { startPostgresServer } from '@workforce-kit/postgres/testing';
import { createWebhookDeliverer } from '@workforce-kit/server';
import pg from 'pg';
import { benchSeed, EMPLOYEES, employeeGuid, RESTAURANT_GUID } from './fixtures.js';

const RELAYS = (process.env.RELAYS_COUNTS ?? '1,4').split(',').map(Number);
const RATE = Number(process.env.WAKEUPS_RATE ?? 50);
const SECONDS = Number(process.env.WAKEUPS_SECONDS ?? 10);
const secret = `whsec_${randomBytes(32).toString('base64')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

const receipts = new Map<string, number>();
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const id = String(req.headers['webhook-id']);
    if (!receipts.has(id)) receipts.set(id, performance.now());
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

/** CPU ms (user + system) of each PostgreSQL process of the server, by pid. */
async function databaseCpu(pool: pg.Pool): Promise<Map<number, number>> {
  const { rows } = await pool.query('SELECT pid FROM pg_stat_activity');
  const cpu = new Map<number, number>();
  for (const { pid } of rows as { pid: number }[]) {
    try {
      const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ');
      cpu.set(pid, ((Number(fields?.[11]) + Number(fields?.[12])) * 1000) / 100);
    } catch {
      // gone
    }
  }
  return cpu;
}

const database = await startPostgresServer();
const results: Record<string, number>[] = [];
try {
  for (const relayCount of RELAYS) {
    const url = await database.createDatabase();
    const pool = new pg.Pool({ connectionString: url, max: 16, idleTimeoutMillis: 0 });
    pool.on('error', () => {});
    const store = await createPostgresStore({ client: pool });
    (await store.seed(benchSeed()))._unsafeUnwrap();
    await registerOutboxDestinations(pool, [hookUrl]);
    const archived = new Map<Guid, boolean>();
    const commits = new Map<string, number>();
    let claims = 0;
    let emptyClaims = 0;
    const relays: OutboxRelay[] = [];
    const pools: pg.Pool[] = [];
    for (let r = 0; r < relayCount; r++) {
      const own = new pg.Pool({ connectionString: url, max: 4, idleTimeoutMillis: 0 });
      own.on('error', () => {});
      const query = own.query.bind(own) as (
        text: string,
        params?: unknown[],
      ) => Promise<pg.QueryResult>;
      Object.assign(own, {
        query: async (text: string, params?: unknown[]) => {
          const result = await query(text, params);
          if (text.includes('workforce_kit_claim_outbox_deliveries')) {
            claims += 1;
            if (result.rows.length === 0) emptyClaims += 1;
          }
          return result;
        },
      });
      pools.push(own);
      relays.push(
        await createOutboxRelay({
          client: own,
          destinations: [hookUrl],
          deliver: createWebhookDeliverer({ secret }),
          concurrency: 2,
        }),
      );
    }
    try {
      await sleep(1000);
      const claimsBefore = claims;
      const emptyBefore = emptyClaims;
      const dbBefore = await databaseCpu(pool);
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      const writes: Promise<void>[] = [];
      for (let i = 0; i < RATE * SECONDS; i++) {
        const wait = started + (i * 1000) / RATE - performance.now();
        if (wait > 0) await sleep(wait);
        const employee = employeeGuid(i % EMPLOYEES);
        if (writes.length >= EMPLOYEES) await writes[writes.length - EMPLOYEES];
        writes.push(
          (async () => {
            const deps = {
              employees: store.employees,
              shifts: store.shifts,
              clock: { now: () => new Date() },
              ids: { newId: () => randomUUID() },
            };
            const command = { restaurant: RESTAURANT_GUID, requestId: 'bench' };
            const result = archived.get(employee)
              ? await unarchiveEmployee(deps, { ...command, employee })
              : await archiveEmployee(deps, {
                  ...command,
                  employee: { kind: 'guid', guid: employee },
                });
            const at = performance.now();
            archived.set(employee, !archived.get(employee));
            for (const event of result._unsafeUnwrap().events) commits.set(event.eventId, at);
          })(),
        );
      }
      await Promise.all(writes);
      const deadline = performance.now() + 120_000;
      while ([...commits.keys()].some((id) => !receipts.has(id))) {
        if (performance.now() > deadline) throw new Error('not every change was delivered');
        await sleep(20);
      }
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const dbAfter = await databaseCpu(pool);
      const dbMs = [...dbAfter].reduce((sum, [pid, ms]) => sum + ms - (dbBefore.get(pid) ?? 0), 0);
      const changes = commits.size;
      const latency = [...commits]
        .map(([id, at]) => (receipts.get(id) ?? Number.NaN) - at)
        .sort((a, b) => a - b);
      results.push({
        relays: relayCount,
        changes,
        seconds,
        claimsPerChange: (claims - claimsBefore) / changes,
        emptyClaimsPerChange: (emptyClaims - emptyBefore) / changes,
        databaseCpuMsPerChange: dbMs / changes,
        relaysAndWritersCpuMsPerChange: (cpu.user + cpu.system) / 1000 / changes,
        p50Ms: percentile(latency, 0.5),
        p99Ms: percentile(latency, 0.99),
      });
    } finally {
      await Promise.all(relays.map((relay) => relay.stop()));
      await Promise.all(pools.map((each) => each.end()));
      await store.close();
      await pool.end();
    }
  }
} finally {
  await database.destroy();
  receiver.close();
}

console.log(
  `\nPostgreSQL 15 (started here); ${RATE} changes/s for ${SECONDS} s, written in this process; each relay over its own pool, 2 loops, polling every 1 s; a receiver on loopback answering 204.\n`,
);
console.log(
  '| relays | claims per change | empty claims per change | database CPU ms per change | this process CPU ms per change | commit→receipt p50 / p99 ms |',
);
console.log('|---|---|---|---|---|---|');
for (const row of results) {
  console.log(
    `| ${row.relays} | ${row.claimsPerChange?.toFixed(2)} | ${row.emptyClaimsPerChange?.toFixed(2)} | ${row.databaseCpuMsPerChange?.toFixed(2)} | ${row.relaysAndWritersCpuMsPerChange?.toFixed(2)} | ${row.p50Ms?.toFixed(1)} / ${row.p99Ms?.toFixed(1)} |`,
  );
}
await mkdir(new URL('../.bench-results/', import.meta.url), { recursive: true });
await writeFile(
  new URL('../.bench-results/relay-wakeups.json', import.meta.url),
  JSON.stringify(results, null, 2),
);
