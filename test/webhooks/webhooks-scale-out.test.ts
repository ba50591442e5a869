// Webhooks from three reference-server processes (Express and Fastify) on one PostgreSQL server,
// to a real HTTP receiver started here: 1,000 changes while the receiver refuses a random 30% and
// is down for a while (until each process had a delivery refused); a
// process killed with SIGKILL while it holds claimed deliveries; the database stopped while
// deliveries are in flight; from a fourth process, a receiver that always fails, the dead
// letter, and its re-drive; and, from two more with a retention of 1 s, a long run of changes
// through which the outbox's row count settles, and a dead letter purged. Every delivery is
// verified with `standardwebhooks`.
import { randomBytes, randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Employee, Shift } from '@workforce-kit/core';
import { anArchivedEmployee, anEmployee, aRestaurant, aShift } from '@workforce-kit/core/testing';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import type { Seed } from '@workforce-kit/seed-file';
import { aClient, aSeed, seedToJson } from '@workforce-kit/seed-file/testing';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HTTP_FRAMEWORKS } from '../../packages/server/src/config.js';
import {
  devLogin,
  runReferenceCommand,
  type ServerProcess,
  startReferenceServer,
  startReferenceServers,
} from '../support/reference-server.js';

const WEBHOOK_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const verifier = new Webhook(WEBHOOK_SECRET);
const PROCESSES = 3;
const EMPLOYEES = 60;
const TOGGLES = 10; // per employee: 600 changes
const SHIFTS = 400; // each deleted twice: 400 changes, 400 no-ops
const WORKERS = 12;
/**
 * A delivery not answered within this is a retry (WEBHOOK_TIMEOUT_MS, test-sized: 5 s by default),
 * and a claim outlives it by a second (WEBHOOK_LEASE_MS): what the tests below wait out.
 */
const DELIVERY_TIMEOUT_MS = 3_000;
const LEASE_MS = DELIVERY_TIMEOUT_MS + 1_000;

const restaurant = aRestaurant();
const employees = Array.from({ length: EMPLOYEES }, (_, i) =>
  i % 2 === 0 ? anArchivedEmployee(restaurant.guid) : anEmployee(restaurant.guid),
);
const shifts = Array.from({ length: SHIFTS }, () => aShift(restaurant.guid));
const client = aClient([restaurant.guid]);

/** One request the receiver got: what was sent, and what it answered. */
interface Receipt {
  readonly id: string;
  readonly body: string;
  readonly signatureValid: boolean;
  readonly status: number;
  readonly at: number;
}

type Mode =
  | { readonly kind: 'accept' }
  | { readonly kind: 'refuse'; readonly rate: number }
  | { readonly kind: 'hold' }
  | { readonly kind: 'slow'; readonly ms: number }
  | { readonly kind: 'fail' }
  /** 500 for the events of one record, 204 for the others. */
  | { readonly kind: 'failRecord'; readonly guid: string };

/**
 * A webhook receiver on a fixed loopback port: it verifies each delivery's signature, answers as
 * its mode says, and can be taken down (connections refused) and brought back on the same port.
 */
async function startReceiver() {
  const receipts: Receipt[] = [];
  const held: ServerResponse[] = [];
  const sockets = new Set<Socket>();
  let mode: Mode = { kind: 'accept' };
  let arrivals = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      arrivals += 1;
      let signatureValid = true;
      try {
        verifier.verify(body, req.headers as Record<string, string>);
      } catch {
        signatureValid = false;
      }
      const id = String(req.headers['webhook-id']);
      const answer = (status: number) => {
        receipts.push({ id, body, signatureValid, status, at: Date.now() });
        res.writeHead(status).end();
      };
      if (mode.kind === 'hold') {
        receipts.push({ id, body, signatureValid, status: 0, at: Date.now() });
        held.push(res);
      } else if (mode.kind === 'slow') setTimeout(() => answer(204), mode.ms);
      else if (mode.kind === 'fail') answer(500);
      else if (mode.kind === 'failRecord')
        answer(JSON.parse(body).data?.record?.guid === mode.guid ? 500 : 204);
      else if (mode.kind === 'refuse' && Math.random() < mode.rate) answer(503);
      else answer(204);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/workforce`,
    receipts,
    /** Requests received so far, answered or not. */
    arrivals: () => arrivals,
    setMode(next: Mode) {
      mode = next;
    },
    /** Stops listening and drops every connection: deliveries are refused until `up()`. */
    async down() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
    async up() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
    },
    /** Drops the held requests' connections. */
    releaseHeld() {
      for (const res of held.splice(0)) res.socket?.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

type Receiver = Awaited<ReturnType<typeof startReceiver>>;

let database: PostgresServer;
let pool: pg.Pool;
let receiver: Receiver;
let servers: ServerProcess[] = [];
let token = '';
let seedFile = '';
const authSecret = randomBytes(32).toString('hex');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => Promise<boolean> | boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  while (
    !(await Promise.resolve()
      .then(check)
      .catch(() => false))
  ) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function writeSeed(seed: Seed): Promise<string> {
  const file = join(tmpdir(), `workforce-kit-webhooks-seed-${randomBytes(6).toString('hex')}.json`);
  await writeFile(file, JSON.stringify(seedToJson(seed)));
  return file;
}

function serverEnv(databaseUrl: string, extra: Record<string, string> = {}) {
  return {
    STORE: 'postgres',
    DATABASE_URL: databaseUrl,
    SEED_FILE: seedFile,
    AUTH_HS256_SECRET: authSecret,
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_PER_15_MIN: '100000000',
    REQUEST_TIMEOUT_MS: '3000',
    WEBHOOK_URLS: receiver.url,
    WEBHOOK_SECRET,
    WEBHOOK_TIMEOUT_MS: String(DELIVERY_TIMEOUT_MS),
    WEBHOOK_LEASE_MS: String(LEASE_MS),
    // Retries every second here (the backoff doubles up to 1 h by default), so that the run is
    // short: with 30% refused at random and the outage, some delivery fails six or more times.
    WEBHOOK_RETRY_MAX_MS: '1000',
    ...extra,
  };
}

/** The answers of the changes, by the request id each was sent with. */
const answers = new Map<string, { status: number; body: Record<string, unknown> }>();

async function call(server: ServerProcess, method: string, path: string) {
  const requestId = `req-${randomUUID()}`;
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'platform-restaurant-external-id': restaurant.guid,
      'x-request-id': requestId,
      ...(method === 'PUT' ? { 'content-type': 'application/json' } : {}),
    },
    signal: AbortSignal.timeout(10_000),
  });
  const answer = { status: res.status, body: (await res.json()) as Record<string, unknown> };
  answers.set(requestId, answer);
  return answer;
}

const serverFor = (i: number) => servers[i % servers.length] as ServerProcess;

interface OutboxRow {
  id: string;
  subject: string;
  position: number;
  type: string;
  request_id: string;
}

async function outboxEvents(db: pg.Pool = pool): Promise<OutboxRow[]> {
  const { rows } = await db.query(
    `SELECT event_id::text AS id, subject_guid::text AS subject, position::int AS position, type, request_id
     FROM outbox ORDER BY position`,
  );
  return rows;
}

/** How many relays (processes) recorded a delivery whose connection was refused. */
async function refusedRelays(): Promise<number> {
  const { rows } = await pool.query(
    "SELECT count(DISTINCT claimed_by)::int AS n FROM outbox_deliveries WHERE last_error LIKE '%ECONNREFUSED%'",
  );
  return (rows[0] as { n: number }).n;
}

async function undelivered(db: pg.Pool = pool): Promise<number> {
  const { rows } = await db.query(
    "SELECT count(*)::int AS n FROM outbox_deliveries WHERE state <> 'delivered'",
  );
  return (rows[0] as { n: number }).n;
}

beforeAll(async () => {
  [database, receiver] = await Promise.all([startPostgresServer(), startReceiver()]);
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  pool.on('error', () => {});
  seedFile = await writeSeed(
    aSeed({ restaurants: [restaurant], employees, shifts, clients: [client] }),
  );
  // The processes alternate between the web frameworks (HTTP_FRAMEWORK): the relay is the same.
  servers = await startReferenceServers(
    Array.from({ length: PROCESSES }, (_, i) =>
      serverEnv(database.url, {
        HTTP_FRAMEWORK: HTTP_FRAMEWORKS[i % HTTP_FRAMEWORKS.length] as string,
      }),
    ),
  );
  token = await devLogin(serverFor(0).url, client);
}, 120_000);

afterAll(async () => {
  receiver?.releaseHeld();
  await Promise.all(servers.map((server) => server.stop()));
  await pool?.end();
  await database?.destroy();
  await receiver?.close();
});

const WEBHOOK_TYPES: Record<string, string> = {
  EmployeeArchived: 'employee.archived',
  EmployeeUnarchived: 'employee.unarchived',
  ShiftDeleted: 'shift.deleted',
};

/** What every delivery must satisfy, for the events of `events`. */
function checkDeliveries(events: readonly OutboxRow[], receipts: readonly Receipt[]) {
  const problems: string[] = [];
  const byId = new Map(events.map((event) => [event.id, event]));
  const bodies = new Map<string, string>();
  for (const receipt of receipts) {
    if (!receipt.signatureValid) problems.push(`bad signature: ${receipt.id}`);
    if (!byId.has(receipt.id)) problems.push(`a delivery of no change: ${receipt.id}`);
    const seen = bodies.get(receipt.id);
    if (seen !== undefined && seen !== receipt.body) problems.push(`two bodies for ${receipt.id}`);
    bodies.set(receipt.id, receipt.body);
  }
  // Every event acknowledged at least once, with the record the API answered.
  const acknowledged = new Map<string, number>();
  receipts.forEach((receipt, i) => {
    if (receipt.status >= 200 && receipt.status < 300 && !acknowledged.has(receipt.id))
      acknowledged.set(receipt.id, i);
  });
  for (const event of events) {
    if (!acknowledged.has(event.id)) {
      problems.push(`never acknowledged: ${event.id}`);
      continue;
    }
    const body = JSON.parse(bodies.get(event.id) ?? '{}');
    const answer = answers.get(event.request_id);
    if (body.type !== WEBHOOK_TYPES[event.type]) problems.push(`type of ${event.id}: ${body.type}`);
    if (answer === undefined || JSON.stringify(body.data?.record) !== JSON.stringify(answer.body))
      problems.push(`record of ${event.id} is not the API's answer`);
    if (body.data?.requestId !== event.request_id) problems.push(`requestId of ${event.id}`);
  }
  // Per subject: no event sent before every earlier one of its subject was acknowledged.
  const previous = new Map<string, OutboxRow>();
  const predecessor = new Map<string, OutboxRow>();
  for (const event of events) {
    const before = previous.get(event.subject);
    if (before !== undefined) predecessor.set(event.id, before);
    previous.set(event.subject, event);
  }
  receipts.forEach((receipt, i) => {
    const before = predecessor.get(receipt.id);
    if (before === undefined) return;
    const ackedAt = acknowledged.get(before.id);
    if (ackedAt === undefined || ackedAt > i)
      problems.push(`${receipt.id} sent before ${before.id} was acknowledged`);
  });
  return problems;
}

describe(`${PROCESSES} processes on one PostgreSQL, a receiver that refuses 30% and is down for a while`, () => {
  it('delivers every one of 1,000 changes at least once: signed, one body per webhook-id, each subject in order, nothing for no-ops', async () => {
    receiver.setMode({ kind: 'refuse', rate: 0.3 });
    // Work items: each employee toggled TOGGLES times, each shift deleted twice; the calls on one
    // record one after the other (each worker owns its records), spread over the processes.
    const state = new Map(employees.map((e) => [e.guid, e.deleted]));
    const jobs: { run: (i: number) => Promise<boolean> }[][] = Array.from(
      { length: WORKERS },
      () => [],
    );
    employees.forEach((employee: Employee, e) => {
      for (let t = 0; t < TOGGLES; t++) {
        jobs[e % WORKERS]?.push({
          run: async (i) => {
            const archived = state.get(employee.guid);
            const answer = archived
              ? await call(serverFor(i), 'PUT', `/labor/v1/employees/${employee.guid}/unarchive`)
              : await call(serverFor(i), 'DELETE', `/labor/v1/employees/${employee.guid}`);
            state.set(employee.guid, !archived);
            return answer.status === 200;
          },
        });
      }
    });
    shifts.forEach((shift: Shift, s) => {
      for (let d = 0; d < 2; d++) {
        jobs[s % WORKERS]?.push({
          run: async (i) =>
            (await call(serverFor(i), 'DELETE', `/labor/v1/shifts/${shift.guid}`)).status === 200,
        });
      }
    });
    let done = 0;
    let failed = 0;
    let outage: Promise<void> | undefined;
    const total = EMPLOYEES * TOGGLES + SHIFTS * 2;
    const started = Date.now();
    await Promise.all(
      jobs.map(async (list, w) => {
        for (const [j, job] of list.entries()) {
          if (!(await job.run(w + j))) failed += 1;
          done += 1;
          if (done === Math.floor(total / 2) && outage === undefined) {
            outage = (async () => {
              await receiver.down();
              // Down until the relay of every process had a delivery refused.
              await waitFor(
                'a refused delivery in every process',
                async () => (await refusedRelays()) === PROCESSES,
                30_000,
              );
              await receiver.up();
            })();
          }
        }
      }),
    );
    await outage;
    const changesMs = Date.now() - started;
    expect(failed).toBe(0);

    const events = await outboxEvents();
    expect(events).toHaveLength(EMPLOYEES * TOGGLES + SHIFTS);
    await waitFor('every delivery', async () => (await undelivered()) === 0, 90_000).catch(
      async (error) => {
        const { rows } = await pool.query(
          `SELECT state, attempts, next_attempt_at - now() AS due, claimed_until - now() AS lease, claimed_by, last_error, subject_guid, event_position
           FROM outbox_deliveries WHERE state <> 'delivered' ORDER BY event_position LIMIT 20`,
        );
        console.log(
          rows,
          servers.map((s) => s.output().slice(-3000)),
        );
        throw error;
      },
    );
    const drainedMs = Date.now() - started;
    expect(checkDeliveries(events, receiver.receipts)).toEqual([]);

    // Refusals and the outage made retries; the three processes shared the deliveries.
    const refused = receiver.receipts.filter((r) => r.status === 503).length;
    expect(refused).toBeGreaterThan(events.length * 0.2);
    const { rows } = await pool.query(
      'SELECT count(DISTINCT claimed_by)::int AS relays, max(attempts)::int AS most FROM outbox_deliveries',
    );
    expect(rows[0].relays).toBe(PROCESSES);
    expect(rows[0].most).toBeGreaterThan(1);
    console.log(
      `${events.length} events from ${total} calls in ${changesMs} ms, all delivered ${drainedMs} ms after the start; ${receiver.receipts.length} deliveries (${refused} refused)`,
    );
  }, 180_000);
});

describe('a process killed with SIGKILL while it holds claimed deliveries', () => {
  it(`loses them to another process when its lease runs out; no answer in ${DELIVERY_TIMEOUT_MS / 1000} s is a retry`, async () => {
    const before = receiver.receipts.length;
    receiver.setMode({ kind: 'hold' });
    const targets = employees.slice(0, 12);
    // At once, so that their deliveries are all held well within the time a delivery waits for
    // its answer.
    await Promise.all(
      targets.map(async (employee, i) => {
        const { rows } = await pool.query('SELECT deleted FROM employees WHERE guid = $1', [
          employee.guid,
        ]);
        const archived = (rows[0] as { deleted: boolean }).deleted;
        await call(
          serverFor(i),
          archived ? 'PUT' : 'DELETE',
          archived
            ? `/labor/v1/employees/${employee.guid}/unarchive`
            : `/labor/v1/employees/${employee.guid}`,
        );
      }),
    );
    // Wait until every new delivery was sent (and is held unanswered), then find a process that
    // holds some of them.
    await waitFor('the held deliveries', () => receiver.receipts.length - before === 12, 10_000);
    const { rows: claims } = await pool.query(
      `SELECT d.claimed_by, d.event_position::int AS position, o.event_id::text AS id,
              (extract(epoch FROM d.claimed_until) * 1000)::float8 AS until
       FROM outbox_deliveries AS d JOIN outbox AS o ON o.position = d.event_position
       WHERE d.claimed_until > now()`,
    );
    const pidOf = (relay: string) => Number(relay.split(':')[1]);
    const victim = servers.find((server) =>
      claims.some(
        (claim: { claimed_by: string }) => pidOf(claim.claimed_by) === server.process.pid,
      ),
    );
    if (victim === undefined) throw new Error('no process holds a claim');
    const held = (
      claims as { claimed_by: string; position: number; id: string; until: number }[]
    ).filter((claim) => pidOf(claim.claimed_by) === victim.process.pid);
    victim.process.kill('SIGKILL');
    servers = servers.filter((server) => server !== victim);
    receiver.setMode({ kind: 'accept' });

    await waitFor('every delivery', async () => (await undelivered()) === 0, 30_000);
    // Each came back to another process, as a second attempt, and only once its lease had run
    // out: no process sent it while the killed one's claim held it.
    const { rows } = await pool.query(
      'SELECT claimed_by, attempts FROM outbox_deliveries WHERE event_position = ANY ($1::int[])',
      [held.map((claim) => claim.position)],
    );
    expect(rows).toHaveLength(held.length);
    for (const row of rows as { claimed_by: string; attempts: number }[]) {
      expect(pidOf(row.claimed_by)).not.toBe(victim.process.pid);
      expect(row.attempts).toBe(2);
    }
    const victimIds = new Set(held.map((claim) => claim.id));
    for (const claim of held) {
      const sent = receiver.receipts.slice(before).filter((r) => r.id === claim.id);
      // Sent once by the killed process (held unanswered), once more after its lease.
      expect(sent.map((r) => r.status)).toEqual([0, 204]);
      expect(sent[1]?.at).toBeGreaterThanOrEqual(Math.floor(claim.until));
    }
    // The others' held deliveries were retried once their time without an answer ran out.
    const others = receiver.receipts.slice(before).filter((r) => !victimIds.has(r.id));
    for (const retry of others.filter((r) => r.status === 204)) {
      const first = others.find((r) => r.id === retry.id);
      expect(retry.at - (first?.at ?? 0)).toBeGreaterThanOrEqual(DELIVERY_TIMEOUT_MS);
    }
    expect(checkDeliveries(await outboxEvents(), receiver.receipts)).toEqual([]);
    receiver.releaseHeld();
    for (const server of servers) expect(server.process.exitCode).toBeNull();
  }, 60_000);
});

describe('the database stopped while deliveries are in flight', () => {
  it('resumes delivery when the database is back, and loses nothing', async () => {
    const arrived = receiver.arrivals();
    const answered = receiver.receipts.length;
    receiver.setMode({ kind: 'slow', ms: 1500 });
    const eventsBefore = (await outboxEvents()).length;
    const targets = employees.slice(12, 32);
    await Promise.all(
      targets.map(async (employee, i) => {
        const { rows } = await pool.query('SELECT deleted FROM employees WHERE guid = $1', [
          employee.guid,
        ]);
        const archived = (rows[0] as { deleted: boolean }).deleted;
        const answer = await call(
          serverFor(i),
          archived ? 'PUT' : 'DELETE',
          archived
            ? `/labor/v1/employees/${employee.guid}/unarchive`
            : `/labor/v1/employees/${employee.guid}`,
        );
        expect(answer.status).toBe(200);
      }),
    );
    // Stopped while deliveries are being answered (slowly): their outcomes cannot be recorded.
    await waitFor('deliveries in flight', () => receiver.arrivals() > arrived, 5000);
    await database.stop();
    // Every delivery that arrived is answered, with the database down.
    await waitFor(
      'the answers to the deliveries in flight',
      () => receiver.receipts.length - answered >= receiver.arrivals() - arrived,
      30_000,
    );
    // Changes while the database is down change nothing (503), and announce nothing.
    const during = await call(serverFor(0), 'DELETE', `/labor/v1/shifts/${shifts[0]?.guid}`);
    expect(during.status).toBe(503);
    await database.start();
    receiver.setMode({ kind: 'accept' });
    await waitFor('every delivery', async () => (await undelivered()) === 0, 45_000);
    const events = await outboxEvents();
    expect(events).toHaveLength(eventsBefore + targets.length);
    expect(checkDeliveries(events, receiver.receipts)).toEqual([]);
    for (const server of servers) expect(server.process.exitCode).toBeNull();
  }, 90_000);
});

describe('a receiver that always fails', () => {
  it('dead-letters the event after WEBHOOK_MAX_ATTEMPTS; `workforce-kit webhooks redrive` delivers it once the receiver is fixed; `retire` removes the receiver', async () => {
    const failing = await startReceiver();
    failing.setMode({ kind: 'fail' });
    const url = await database.createDatabase();
    const db = new pg.Pool({ connectionString: url, max: 2 });
    db.on('error', () => {});
    const server = await startReferenceServer(
      serverEnv(url, { WEBHOOK_URLS: failing.url, WEBHOOK_MAX_ATTEMPTS: '3' }),
    );
    try {
      const employee = employees[40] as Employee;
      const path = (archived: boolean) =>
        archived
          ? `/labor/v1/employees/${employee.guid}/unarchive`
          : `/labor/v1/employees/${employee.guid}`;
      const method = (archived: boolean) => (archived ? 'PUT' : 'DELETE');
      // Seeded afresh in this database: the employee is as the seed has it.
      expect((await call(server, method(employee.deleted), path(employee.deleted))).status).toBe(
        200,
      );
      await waitFor(
        'the dead letter',
        async () => {
          const { rows } = await db.query(
            "SELECT attempts, last_error FROM outbox_deliveries WHERE state = 'dead'",
          );
          return rows.length === 1;
        },
        20_000,
      );
      const { rows: dead } = await db.query(
        "SELECT attempts, last_error FROM outbox_deliveries WHERE state = 'dead'",
      );
      expect(dead).toEqual([{ attempts: 3, last_error: 'HTTP 500' }]);
      expect(failing.receipts.map((r) => r.status)).toEqual([500, 500, 500]);
      // A later change of the same employee waits behind the dead one.
      expect((await call(server, method(!employee.deleted), path(!employee.deleted))).status).toBe(
        200,
      );
      await sleep(1500);
      expect(failing.receipts).toHaveLength(3);

      // The operator's view and re-drive: the `workforce-kit webhooks` command, on the same store.
      const store = { STORE: 'postgres', DATABASE_URL: url };
      expect(await runReferenceCommand(['webhooks', 'status'], store)).toEqual({
        code: 0,
        output: expect.stringMatching(
          new RegExp(
            `^${failing.url.replaceAll('.', '\\.')}  pending 1  dead 1  oldest pending \\d+ s\n$`,
          ),
        ),
      });
      failing.setMode({ kind: 'accept' });
      expect(
        await runReferenceCommand(['webhooks', 'redrive', '--destination', failing.url], store),
      ).toEqual({ code: 0, output: 're-drove 1 dead delivery\n' });
      await waitFor('the re-drive', async () => (await undelivered(db)) === 0, 15_000);
      const events = await outboxEvents(db);
      expect(events).toHaveLength(2);
      expect(failing.receipts.map((r) => [r.id, r.status])).toEqual([
        [events[0]?.id, 500],
        [events[0]?.id, 500],
        [events[0]?.id, 500],
        [events[0]?.id, 204],
        [events[1]?.id, 204],
      ]);
      expect(checkDeliveries(events, failing.receipts)).toEqual([]);

      // A receiver given up: retired, its deliveries deleted, none queued for it any more.
      expect(
        await runReferenceCommand(['webhooks', 'retire', '--destination', failing.url], store),
      ).toEqual({ code: 0, output: `retired ${failing.url}: 2 deliveries deleted\n` });
      expect((await call(server, method(employee.deleted), path(employee.deleted))).status).toBe(
        200,
      );
      const { rows: left } = await db.query(
        'SELECT (SELECT count(*) FROM outbox_destinations)::int AS destinations, (SELECT count(*) FROM outbox_deliveries)::int AS deliveries, (SELECT count(*) FROM outbox)::int AS events',
      );
      expect(left).toEqual([{ destinations: 0, deliveries: 0, events: 3 }]);
    } finally {
      await server.stop();
      await db.end();
      await failing.close();
    }
  }, 90_000);
});

describe('the outbox under a long run of changes (WEBHOOK_RETENTION_SECONDS=1, two processes)', () => {
  it('keeps what was delivered for the period only: the row count settles; a dead letter and the change it holds back stay until `workforce-kit webhooks purge`', async () => {
    const hooks = await startReceiver();
    const failing = employees[1] as Employee;
    const others = employees.slice(2, 22);
    hooks.setMode({ kind: 'failRecord', guid: failing.guid });
    const url = await database.createDatabase();
    const db = new pg.Pool({ connectionString: url, max: 2 });
    db.on('error', () => {});
    const env = (framework: string) =>
      serverEnv(url, {
        HTTP_FRAMEWORK: framework,
        WEBHOOK_URLS: hooks.url,
        WEBHOOK_MAX_ATTEMPTS: '2',
        WEBHOOK_RETENTION_SECONDS: '1',
      });
    const two = await startReferenceServers([env('express'), env('fastify')]);
    const count = async (sql: string) => ((await db.query(sql)).rows[0] as { n: number }).n;
    try {
      // Seeded afresh in this database: each employee is as the seed has it.
      const archived = new Map(employees.map((e) => [e.guid, e.deleted]));
      const toggle = async (employee: Employee, i: number) => {
        const was = archived.get(employee.guid);
        const answer = await call(
          two[i % 2] as ServerProcess,
          was ? 'PUT' : 'DELETE',
          was
            ? `/labor/v1/employees/${employee.guid}/unarchive`
            : `/labor/v1/employees/${employee.guid}`,
        );
        expect(answer.status).toBe(200);
        archived.set(employee.guid, !was);
        return answer;
      };
      // The failing record's change is dead-lettered; its next one waits behind it.
      await toggle(failing, 0);
      await waitFor(
        'the dead letter',
        async () =>
          (await count("SELECT count(*)::int AS n FROM outbox_deliveries WHERE state = 'dead'")) ===
          1,
      );
      await toggle(failing, 1);

      // Rounds of one change per employee through both processes, each acknowledged by the
      // receiver before the next, for at least six periods and retention intervals.
      const samples: number[] = [];
      let written = 2;
      const started = Date.now();
      while (samples.length < 20 || Date.now() - started < 12_000) {
        const before = hooks.receipts.length;
        await Promise.all(others.map((employee, i) => toggle(employee, i)));
        written += others.length;
        await waitFor(
          'the round acknowledged',
          () =>
            hooks.receipts.slice(before).filter((r) => r.status === 204).length >= others.length,
        );
        samples.push(await count('SELECT count(*)::int AS n FROM outbox'));
      }
      const secondHalf = samples.slice(Math.floor(samples.length / 2));
      console.log(
        `${written} changes in ${samples.length} rounds; the outbox held at most ${Math.max(...secondHalf)} events in the second half`,
      );
      // Without retention it would hold every change written.
      expect(Math.max(...secondHalf)).toBeLessThan(written / 3);

      // The run over, everything delivered goes; the dead letter and the change it holds back
      // stay, with their events.
      await waitFor(
        'the outbox emptied but for the dead letter',
        async () => (await count('SELECT count(*)::int AS n FROM outbox')) === 2,
      );
      const { rows: left } = await db.query(
        `SELECT d.state, o.subject_guid::text AS subject FROM outbox_deliveries AS d
         JOIN outbox AS o ON o.position = d.event_position ORDER BY d.event_position`,
      );
      expect(left).toEqual([
        { state: 'dead', subject: failing.guid },
        { state: 'pending', subject: failing.guid },
      ]);

      // Given up: purged with the operator's command; the change it held back is delivered, and
      // both events go.
      hooks.setMode({ kind: 'accept' });
      const store = { STORE: 'postgres', DATABASE_URL: url };
      expect(
        await runReferenceCommand(['webhooks', 'purge', '--destination', hooks.url], store),
      ).toEqual({ code: 0, output: 'purged 1 dead delivery\n' });
      await waitFor(
        'the held-back change delivered and the outbox empty',
        async () => (await count('SELECT count(*)::int AS n FROM outbox')) === 0,
      );
      expect(hooks.receipts.filter((r) => r.status === 204).length).toBe(written - 1);
    } finally {
      await Promise.all(two.map((server) => server.stop()));
      await db.end();
      await hooks.close();
    }
  }, 120_000);
});
