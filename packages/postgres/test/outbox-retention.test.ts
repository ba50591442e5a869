// The outbox's retention on each PostgreSQL server of the tests and PGlite: what goes (delivered
// deliveries and events with no delivery left, once older than the period) and what stays (younger
// rows, dead letters, the deliveries they hold back, their events); batches, rows held by other
// transactions skipped, one relay at a time; a long run of changes through a relay to an HTTP
// receiver, where the outbox settles; and a purged dead letter.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { type Employee, eventSubject } from '@workforce-kit/core';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  createOutboxRelay,
  type Deliverer,
  purgeDeadOutboxDeliveries,
  RETENTION_DEFAULTS,
  registerOutboxDestinations,
  retireOutboxDestination,
  type SqlClient,
} from '../src/index.js';
import { pruneOutbox, pruneOutboxBatch } from '../src/outbox-retention.js';
import { createDatabase } from '../src/testing/index.js';
import {
  delivered,
  deliveryStates,
  outboxFixture,
  seededStore,
  toggle,
  waitFor,
} from './outbox-support.js';
import { POSTGRES_SERVERS } from './support.js';

const DESTINATION = 'http://receiver.test/hook';
const SECOND = 'http://second.test/hook';
const WEEK_MS = RETENTION_DEFAULTS.periodMs;
let cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  cleanups = [];
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

/** A retention run to the end, as a relay runs it (no pause between batches here). */
const prune = (client: SqlClient, periodMs = WEEK_MS, batchSize = 500) =>
  pruneOutbox(
    client,
    { periodMs, batchSize, vacuum: false },
    async () => {},
    () => false,
  );

async function rows(client: SqlClient) {
  const events = await client.query('SELECT event_id::text AS id FROM outbox ORDER BY position');
  const deliveries = await client.query(
    `SELECT o.event_id::text AS id, d.destination, d.state
     FROM outbox_deliveries AS d JOIN outbox AS o ON o.position = d.event_position
     ORDER BY d.event_position, d.destination`,
  );
  return {
    events: (events.rows as { id: string }[]).map((row) => row.id),
    deliveries: deliveries.rows as { id: string; destination: string; state: string }[],
  };
}

/** Sets a delivery's state, and when it was delivered and its event recorded, `agoMs` back. */
async function setDelivery(
  client: SqlClient,
  eventId: string,
  destination: string,
  state: 'delivered' | 'dead' | 'pending',
  agoMs: number,
) {
  await client.query(
    `UPDATE outbox_deliveries SET state = $3,
       delivered_at = CASE WHEN $3 = 'delivered' THEN now() - $4 * interval '1 millisecond' END
     WHERE destination = $2 AND event_position = (SELECT position FROM outbox WHERE event_id = $1)`,
    [eventId, destination, state, agoMs],
  );
}

async function recordedAgo(client: SqlClient, eventIds: readonly string[], agoMs: number) {
  await client.query(
    `UPDATE outbox SET recorded_at = now() - $2 * interval '1 millisecond' WHERE event_id = ANY ($1::uuid[])`,
    [eventIds, agoMs],
  );
}

const DAY_MS = 86_400_000;

for (const server of POSTGRES_SERVERS) {
  describe(`on ${server.name}`, () => {
    const fixture = async (count = 4) =>
      outboxFixture(cleanups, await createDatabase(server.url), count);

    describe('the retention', () => {
      it('deletes delivered deliveries and the events with none left once older than the period; keeps younger ones, dead letters, what they hold back, and their events', async () => {
        const { pool, store, employees } = await fixture(4);
        const [a, b, c, d] = employees as [Employee, Employee, Employee, Employee];
        // Recorded while no destination was registered: an event with no delivery.
        const undelivered = await toggle(store, a);
        await registerOutboxDestinations(pool, [DESTINATION, SECOND]);
        const done = await toggle(store, a);
        const deadForSecond = await toggle(store, b);
        const heldBack = await toggle(store, b);
        const redrivenLately = await toggle(store, d);
        const recent = await toggle(store, c);
        await recordedAgo(
          pool,
          [undelivered, done, deadForSecond, heldBack, redrivenLately],
          8 * DAY_MS,
        );
        for (const destination of [DESTINATION, SECOND]) {
          await setDelivery(pool, done, destination, 'delivered', 8 * DAY_MS);
          await setDelivery(pool, recent, destination, 'delivered', 0);
          // Delivered an hour ago, after a re-drive: the period counts from the delivery.
          await setDelivery(pool, redrivenLately, destination, 'delivered', 3_600_000);
        }
        await setDelivery(pool, deadForSecond, DESTINATION, 'delivered', 8 * DAY_MS);
        await setDelivery(pool, deadForSecond, SECOND, 'dead', 0);
        await setDelivery(pool, heldBack, DESTINATION, 'delivered', 8 * DAY_MS);
        // heldBack stays pending for SECOND, behind the dead letter of its employee.

        expect(await prune(pool)).toEqual({ deliveries: 4, events: 2 });
        expect(await rows(pool)).toEqual({
          events: [deadForSecond, heldBack, redrivenLately, recent],
          deliveries: [
            { id: deadForSecond, destination: SECOND, state: 'dead' },
            { id: heldBack, destination: SECOND, state: 'pending' },
            { id: redrivenLately, destination: DESTINATION, state: 'delivered' },
            { id: redrivenLately, destination: SECOND, state: 'delivered' },
            { id: recent, destination: DESTINATION, state: 'delivered' },
            { id: recent, destination: SECOND, state: 'delivered' },
          ],
        });
        // A second run has nothing more to delete; with a period of an hour less a minute, the
        // deliveries delivered an hour ago go, and their event with them.
        expect(await prune(pool)).toEqual({ deliveries: 0, events: 0 });
        expect(await prune(pool, 3_540_000)).toEqual({ deliveries: 2, events: 1 });
        expect((await rows(pool)).events).toEqual([deadForSecond, heldBack, recent]);
      });

      /** A store whose `n` events were all delivered to one destination 8 days ago. */
      async function weekOld(n: number) {
        const fixed = await fixture(n);
        await registerOutboxDestinations(fixed.pool, [DESTINATION]);
        const ids: string[] = [];
        for (const employee of fixed.employees) ids.push(await toggle(fixed.store, employee));
        await recordedAgo(fixed.pool, ids, 8 * DAY_MS);
        await fixed.pool.query(
          `UPDATE outbox_deliveries SET state = 'delivered', delivered_at = now() - interval '8 days'`,
        );
        return { ...fixed, ids };
      }

      it('deletes in batches, one statement each, until a batch is short and the sweep is through', async () => {
        const { pool, store, employees } = await weekOld(25);
        const batches: { deliveries: number; events: number }[] = [];
        const counting: SqlClient = {
          async query(text, params) {
            const result = await pool.query(text, params);
            const row = result.rows[0] as { deliveries: number; events: number } | undefined;
            if (text.includes('workforce_kit_prune_outbox') && row !== undefined)
              batches.push({ deliveries: row.deliveries, events: row.events });
            return result;
          },
        };
        expect(await prune(counting, WEEK_MS, 10)).toEqual({ deliveries: 25, events: 25 });
        expect(batches).toEqual([
          { deliveries: 10, events: 10 },
          { deliveries: 10, events: 10 },
          { deliveries: 5, events: 5 },
        ]);
        expect(await rows(pool)).toEqual({ events: [], deliveries: [] });

        // Events with no delivery (their destination retired): the sweep goes through them 10 at a
        // time too.
        await retireOutboxDestination(pool, DESTINATION);
        const ids: string[] = [];
        for (const employee of employees.slice(0, 12)) ids.push(await toggle(store, employee));
        await recordedAgo(pool, ids, 8 * DAY_MS);
        batches.length = 0;
        expect(await prune(counting, WEEK_MS, 10)).toEqual({ deliveries: 0, events: 12 });
        expect(batches).toEqual([
          { deliveries: 0, events: 10 },
          { deliveries: 0, events: 2 },
        ]);
      });

      it('keeps a dead letter until purged; then the change it held back goes, and both events are removed', async () => {
        const { pool, store, employees } = await fixture(2);
        const [a, b] = employees as [Employee, Employee];
        let refusing = true;
        const handed: string[] = [];
        const relay = await createOutboxRelay({
          client: pool,
          destinations: [DESTINATION],
          pollIntervalMs: 20,
          retry: { minDelayMs: 10, maxAttempts: 1 },
          retention: { periodMs: 1, intervalMs: 20 },
          deliver: async (batch) =>
            batch.map((delivery) => {
              handed.push(delivery.event.eventId);
              const event = delivery.event as { employeeGuid?: string };
              return refusing && event.employeeGuid === a.guid
                ? { outcome: 'retry', error: 'HTTP 500' }
                : delivered;
            }),
        });
        cleanups.push(() => relay.stop());
        const dead = await toggle(store, a);
        await waitFor('the dead letter', async () => (await deliveryStates(pool)).dead === 1);
        refusing = false;
        const held = await toggle(store, a);
        // Another employee's change is delivered and removed: the retention has run since.
        const other = await toggle(store, b);
        await waitFor('the retention', async () => !(await rows(pool)).events.includes(other));
        expect(await rows(pool)).toEqual({
          events: [dead, held],
          deliveries: [
            { id: dead, destination: DESTINATION, state: 'dead' },
            { id: held, destination: DESTINATION, state: 'pending' },
          ],
        });

        expect(await purgeDeadOutboxDeliveries(pool, { destination: SECOND })).toBe(0);
        expect(await purgeDeadOutboxDeliveries(pool, { eventIds: [held] })).toBe(0);
        expect(await purgeDeadOutboxDeliveries(pool, { destination: DESTINATION })).toBe(1);
        await waitFor('the held-back change delivered', () => handed.includes(held));
        await waitFor('the outbox emptied', async () => (await rows(pool)).events.length === 0);
        expect(await rows(pool)).toEqual({ events: [], deliveries: [] });
        expect(handed).toEqual([dead, other, held]);
      });

      it('skips the rows another transaction holds rather than wait for them, and runs in one relay at a time', async () => {
        const { pool, ids } = await weekOld(6);
        const other = await pool.connect();
        cleanups.push(async () => other.release());
        // A transaction that holds one delivery: the batch goes on without it (and its event).
        await other.query('BEGIN');
        await other.query(
          'SELECT 1 FROM outbox_deliveries WHERE event_position = (SELECT position FROM outbox WHERE event_id = $1) FOR UPDATE',
          [ids[0]],
        );
        expect(await prune(pool)).toEqual({ deliveries: 5, events: 5 });
        await other.query('COMMIT');
        expect((await rows(pool)).events).toEqual([ids[0]]);

        // Another relay's batch under way (its lock held here): this batch does nothing, and says so.
        await other.query('BEGIN');
        await other.query('SELECT pg_advisory_xact_lock(7438291002)');
        expect(await pruneOutboxBatch(pool, WEEK_MS, 500, '0')).toMatchObject({
          deliveries: 0,
          events: 0,
          skipped: true,
        });
        await other.query('COMMIT');
        expect(await pruneOutboxBatch(pool, WEEK_MS, 500, '0')).toMatchObject({
          deliveries: 1,
          events: 1,
          skipped: false,
        });
      });
    });
  });
}

/**
 * A webhook receiver on loopback: it acknowledges every POST (204) but those about the `refused`
 * subject (500), and keeps the event ids it acknowledged. The subject, not the event id: an event
 * id is known only once its write returns, and the relay may deliver the event before that.
 */
async function startReceiver(refused: string) {
  const acknowledged = new Set<string>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      const { id, subject } = JSON.parse(body) as { id: string; subject: string };
      if (subject === refused) {
        res.writeHead(500).end();
        return;
      }
      acknowledged.add(id);
      res.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, acknowledged };
}

/** POSTs each delivery's event id and subject; 2xx is delivered. */
const httpDeliverer: Deliverer = (batch, signal) =>
  Promise.all(
    batch.map(async (delivery) => {
      try {
        const res = await fetch(delivery.destination, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            id: delivery.event.eventId,
            subject: eventSubject(delivery.event),
          }),
          signal,
        });
        return res.ok ? delivered : { outcome: 'retry' as const, error: `HTTP ${res.status}` };
      } catch (error) {
        return { outcome: 'retry' as const, error: String(error) };
      }
    }),
  );

async function outboxSize(client: SqlClient) {
  const { rows } = await client.query(
    `SELECT (SELECT count(*) FROM outbox)::int AS events,
            (SELECT count(*) FROM outbox_deliveries)::int AS deliveries,
            (pg_total_relation_size('outbox') + pg_total_relation_size('outbox_deliveries'))::float8 AS bytes`,
  );
  return rows[0] as { events: number; deliveries: number; bytes: number };
}

const PERIOD_MS = 250;
const INTERVAL_MS = 50;
const EMPLOYEES = 20;

const DATABASES = [...POSTGRES_SERVERS, { name: 'PGlite', url: null }];

for (const { name, url } of DATABASES) {
  describe(`a long run of changes on ${name}`, () => {
    it('through a relay to an HTTP receiver: the outbox settles, and empties but for a dead letter and what it holds back', async () => {
      let client: SqlClient;
      if (url === null) {
        const db = await PGlite.create();
        cleanups.push(() => db.close());
        client = db;
      } else {
        const pool = new pg.Pool({ connectionString: await createDatabase(url), max: 4 });
        cleanups.push(() => pool.end());
        client = pool;
      }
      const { store, employees } = await seededStore(client, EMPLOYEES);
      const [failing, ...others] = employees as [Employee, ...Employee[]];
      const receiver = await startReceiver(failing.guid);
      const relay = await createOutboxRelay({
        client,
        destinations: [receiver.url],
        deliver: httpDeliverer,
        retry: { minDelayMs: 10, maxDelayMs: 20, maxAttempts: 2 },
        pollIntervalMs: 50,
        retention: { periodMs: PERIOD_MS, intervalMs: INTERVAL_MS },
      });
      cleanups.push(() => relay.stop());
      const refused = await toggle(store, failing);
      const heldBack = await toggle(store, failing);
      await waitFor('the dead letter', async () => (await deliveryStates(client)).dead === 1);

      // Rounds of one change per employee, each delivered before the next, for at least twelve
      // retention periods and intervals (however many changes that is on this machine).
      const samples: { written: number; events: number; deliveries: number; bytes: number }[] = [];
      let written = 2;
      const started = Date.now();
      while (samples.length < 20 || Date.now() - started < 12 * (PERIOD_MS + INTERVAL_MS)) {
        const ids = await Promise.all(others.map((employee) => toggle(store, employee)));
        written += ids.length;
        await waitFor('the round acknowledged', () =>
          ids.every((id) => receiver.acknowledged.has(id)),
        );
        samples.push({ written, ...(await outboxSize(client)) });
      }
      // Without retention, the outbox would hold every change written; it holds those of the last
      // period or so.
      const half = Math.floor(samples.length / 2);
      const most = (from: number, to: number, of: 'events' | 'deliveries' | 'bytes') =>
        Math.max(...samples.slice(from, to).map((sample) => sample[of]));
      console.log(
        `${name}: ${written} changes in ${samples.length} rounds; at most ${most(half, samples.length, 'events')} events and ${most(half, samples.length, 'deliveries')} deliveries held in the second half`,
      );
      expect(most(half, samples.length, 'events')).toBeLessThan(written / 3);
      expect(most(half, samples.length, 'deliveries')).toBeLessThan(written / 3);
      if (url === null) {
        // PGlite has no autovacuum: the relay vacuums after pruning, so the space is reused rather
        // than the files growing with every change (they would double from one half to the next).
        expect(most(half, samples.length, 'bytes')).toBeLessThan(1.5 * most(0, half, 'bytes'));
      }

      // Once the changes stop, everything delivered goes; the dead letter and the change it holds
      // back stay, with their events.
      await waitFor('the outbox emptied', async () => (await rows(client)).events.length === 2);
      expect(await rows(client)).toEqual({
        events: [refused, heldBack],
        deliveries: [
          { id: refused, destination: receiver.url, state: 'dead' },
          { id: heldBack, destination: receiver.url, state: 'pending' },
        ],
      });
    });
  });
}
