// The outbox relay on each PostgreSQL server of the tests (and PGlite): claims shared by several
// relays, per-subject order, leases, retries and dead letters, re-drive, retirement, wake-up on
// NOTIFY, and the database stopped while a batch is being handed over.
import { PGlite } from '@electric-sql/pglite';
import type { Employee, Shift, WorkforceStore } from '@workforce-kit/core';
import { anEmployee, seedRecords } from '@workforce-kit/core/testing';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createOutboxRelay,
  createPostgresStore,
  type DeliveryOutcome,
  type DeliveryResult,
  type OutboxDelivery,
  type OutboxRelay,
  outboxBacklog,
  redriveOutboxDeliveries,
  registerOutboxDestinations,
  retireOutboxDestination,
  retryDelayMs,
  type SqlClient,
} from '../src/index.js';
import { createDatabase, startPostgresServer } from '../src/testing/index.js';
import {
  delivered,
  deliveryStates,
  outboxFixture,
  removeShift,
  restaurant,
  toggle,
  waitFor,
} from './outbox-support.js';
import { POSTGRES_SERVERS } from './support.js';

const DESTINATION = 'http://receiver.test/hook';
const SECOND = 'http://second.test/hook';
const cleanups: (() => Promise<unknown>)[] = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
});

describe('retryDelayMs', () => {
  it('doubles from 1 s to at most 1 h, with jitter of ±20%', () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 13, 40].map((n) => retryDelayMs(n, {}, middle))).toEqual([
      1000, 2000, 4000, 8000, 3_600_000, 3_600_000,
    ]);
    expect(retryDelayMs(1, {}, () => 0)).toBe(800);
    expect(retryDelayMs(1, {}, () => 1)).toBe(1200);
    expect(retryDelayMs(3, { minDelayMs: 10, maxDelayMs: 25, jitter: 0 })).toBe(25);
  });
});

/** A deliverer that records every hand-over, refuses a share of them, and checks exclusivity. */
function recordingDeliverer(refuse: (delivery: OutboxDelivery) => boolean) {
  const handed: { delivery: OutboxDelivery; result: DeliveryResult; relay: string }[] = [];
  const inFlight = new Set<string>();
  const overlaps: string[] = [];
  const make =
    (relay: string) =>
    async (batch: readonly OutboxDelivery[]): Promise<DeliveryResult[]> =>
      Promise.all(
        batch.map(async (delivery) => {
          const key = `${delivery.destination} ${delivery.position}`;
          if (inFlight.has(key)) overlaps.push(key);
          inFlight.add(key);
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 3));
          inFlight.delete(key);
          const result: DeliveryResult = refuse(delivery)
            ? { outcome: 'retry', error: 'HTTP 503' }
            : delivered;
          handed.push({ delivery, result, relay });
          return result;
        }),
      );
  return { handed, overlaps, make };
}

function poolUrl(pool: pg.Pool): string {
  return (pool.options as { connectionString: string }).connectionString;
}

function eventSubjectOf(delivery: OutboxDelivery): string {
  const { event } = delivery;
  return event.type === 'ShiftDeleted' ? event.shiftGuid : event.employeeGuid;
}

/** The poll of a relay that only a notification can wake in a test's time. */
const NO_POLL_MS = 600_000;

/**
 * A relay that never polls (in a test's time), and `n` changes made one at a time, each awaited
 * until handed over: only the write statement's notification can have woken the relay. (How
 * soon: `pnpm bench`.)
 */
async function handedOverOnNotify(
  client: SqlClient,
  store: WorkforceStore,
  employee: Employee,
  n = 5,
) {
  const handed = new Set<string>();
  const relay = await createOutboxRelay({
    client,
    destinations: [DESTINATION],
    pollIntervalMs: NO_POLL_MS,
    deliver: async (batch) => {
      for (const delivery of batch) handed.add(delivery.event.eventId);
      return batch.map(() => delivered);
    },
  });
  const changes: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const eventId = await toggle(store, employee);
      changes.push(eventId);
      await waitFor('the hand-over', () => handed.has(eventId), 20_000);
    }
  } finally {
    await relay.stop();
  }
  return { changes, handed: [...handed] };
}

describe('waking on the write statement in PGlite', () => {
  it('hands each change over on its own listen, with no poll', async () => {
    const db = await PGlite.create();
    cleanups.push(() => db.close());
    const store = await createPostgresStore({ client: db });
    const employee = anEmployee(restaurant.guid);
    (
      await store.seed(seedRecords({ restaurants: [restaurant], employees: [employee] }))
    )._unsafeUnwrap();
    const { changes, handed } = await handedOverOnNotify(db, store, employee);
    expect(handed).toEqual(changes);
  });
});

for (const server of POSTGRES_SERVERS) {
  describe(`on ${server.name}`, () => {
    const fixture = async (count?: number, url?: string, poolOptions?: pg.PoolConfig) =>
      outboxFixture(cleanups, url ?? (await createDatabase(server.url)), count, poolOptions);

    describe('the write statement', () => {
      it('queues no delivery while no destination is registered, and one per destination after', async () => {
        const { pool, store, employees } = await fixture(2);
        await toggle(store, employees[0] as Employee);
        expect(await deliveryStates(pool)).toEqual({});
        await registerOutboxDestinations(pool, [DESTINATION, SECOND, DESTINATION]);
        const eventId = await toggle(store, employees[1] as Employee);
        const { rows } = await pool.query(
          `SELECT d.destination, d.state, o.record FROM outbox_deliveries d JOIN outbox o ON o.position = d.event_position
         WHERE o.event_id = $1 ORDER BY d.destination`,
          [eventId],
        );
        expect(rows.map((row: { destination: string }) => row.destination)).toEqual([
          DESTINATION,
          SECOND,
        ]);
        // The record after the change rides with the event, without the point-of-sale secrets.
        const record = (rows[0] as { record: Record<string, unknown> }).record;
        expect(record).toMatchObject({ guid: (employees[1] as Employee).guid, deleted: true });
        expect(record).not.toHaveProperty('passcode');
        expect(record).not.toHaveProperty('swipeCard');
      });

      it('queues nothing for a call that changes nothing (a shift deleted twice)', async () => {
        const { pool, store, shifts } = await fixture(1);
        await registerOutboxDestinations(pool, [DESTINATION]);
        expect(await removeShift(store, shifts[0] as Shift)).toHaveLength(1);
        expect(await removeShift(store, shifts[0] as Shift)).toHaveLength(0);
        expect(await deliveryStates(pool)).toEqual({ pending: 1 });
      });
    });

    describe('relays sharing one database', () => {
      it('deliver every event, never one to two relays at once, each subject in order', async () => {
        const { pool, store, employees, shifts } = await fixture(20);
        const deliverer = recordingDeliverer(() => Math.random() < 0.3);
        const relays: OutboxRelay[] = [];
        for (let r = 0; r < 3; r++) {
          // Each relay has a pool of its own, as a process would.
          const own = new pg.Pool({ connectionString: poolUrl(pool), max: 3 });
          own.on('error', () => {});
          cleanups.push(() => own.end());
          relays.push(
            await createOutboxRelay({
              client: own,
              destinations: [DESTINATION, SECOND],
              deliver: deliverer.make(`relay-${r}`),
              batchSize: 7,
              retry: { minDelayMs: 20, maxDelayMs: 200 },
            }),
          );
        }
        cleanups.push(() => Promise.all(relays.map((relay) => relay.stop())));
        // 20 employees toggled 5 times each and 20 shifts deleted twice, 8 calls at a time (the
        // calls on one record one after the other).
        type Change = { guid: string; run: () => Promise<string[]> };
        const work: Change[] = [
          ...employees.flatMap((employee) =>
            Array.from({ length: 5 }, () => ({
              guid: employee.guid,
              run: async () => [await toggle(store, employee)],
            })),
          ),
          ...shifts.flatMap((shift) =>
            Array.from({ length: 2 }, () => ({
              guid: shift.guid,
              run: () => removeShift(store, shift),
            })),
          ),
        ];
        const written: string[] = [];
        for (let i = 0; i < work.length; i += 8) {
          const bySubject = new Map<string, Change[]>();
          for (const change of work.slice(i, i + 8))
            bySubject.set(change.guid, [...(bySubject.get(change.guid) ?? []), change]);
          await Promise.all(
            [...bySubject.values()].map(async (changes) => {
              for (const change of changes) written.push(...(await change.run()));
            }),
          );
        }
        expect(written).toHaveLength(20 * 5 + 20);
        await waitFor('every delivery', async () => {
          const states = await deliveryStates(pool);
          return states.delivered === written.length * 2 && Object.keys(states).length === 1;
        });
        expect(deliverer.overlaps).toEqual([]);

        // Every event was handed to each destination and delivered; a retry came before its success.
        const deliveredKeys = deliverer.handed
          .filter((h) => h.result.outcome === 'delivered')
          .map((h) => `${h.delivery.destination} ${h.delivery.event.eventId}`);
        expect(new Set(deliveredKeys).size).toBe(written.length * 2);
        expect(deliverer.handed.some((h) => h.result.outcome === 'retry')).toBe(true);
        expect(new Set(deliverer.handed.map((h) => h.relay)).size).toBe(3);

        // Per subject and destination: no event handed over before every earlier one was delivered.
        const { rows } = await pool.query(
          'SELECT event_id::text AS id, position::int AS position, subject_guid::text AS subject FROM outbox',
        );
        const bySubject = new Map<string, number[]>();
        for (const row of rows as { position: number; subject: string }[])
          bySubject.set(row.subject, [...(bySubject.get(row.subject) ?? []), row.position]);
        const done = new Set<string>();
        const violations: string[] = [];
        for (const { delivery, result } of deliverer.handed) {
          const earlier = (bySubject.get(eventSubjectOf(delivery)) ?? []).filter(
            (position) => position < delivery.position,
          );
          for (const position of earlier)
            if (!done.has(`${delivery.destination} ${position}`))
              violations.push(`${delivery.position} before ${position}`);
          if (result.outcome === 'delivered')
            done.add(`${delivery.destination} ${delivery.position}`);
        }
        expect(violations).toEqual([]);
        const total = relays.map((relay) => relay.counts());
        expect(total.reduce((sum, c) => sum + c.delivered, 0)).toBe(written.length * 2);
        expect(total.reduce((sum, c) => sum + c.superseded, 0)).toBe(0);
      });
    });

    describe('a relay that stops answering', () => {
      it('loses its claims when the lease runs out, to a relay that delivers them; its late outcome is not recorded', async () => {
        const { pool, store, employees } = await fixture(2);
        let release: () => void = () => {};
        const hung = new Promise<void>((resolve) => {
          release = resolve;
        });
        const outcomes: DeliveryOutcome[] = [];
        const stuck = await createOutboxRelay({
          client: pool,
          destinations: [DESTINATION],
          leaseMs: 400,
          deliver: async (batch) => {
            await hung;
            return batch.map(() => delivered);
          },
          onOutcome: (outcome) => outcomes.push(outcome),
        });
        cleanups.push(() => stuck.stop({ abandonAfterMs: 10 }));
        const eventId = await toggle(store, employees[0] as Employee);
        await waitFor('the claim', async () => {
          const { rows } = await pool.query(
            'SELECT claimed_by FROM outbox_deliveries WHERE claimed_until IS NOT NULL',
          );
          return rows.length === 1;
        });
        const handed: OutboxDelivery[] = [];
        const rescuer = await createOutboxRelay({
          client: pool,
          destinations: [DESTINATION],
          pollIntervalMs: 50,
          deliver: async (batch) => {
            handed.push(...batch);
            return batch.map(() => delivered);
          },
        });
        cleanups.push(() => rescuer.stop());
        await waitFor('the rescue', () => handed.length === 1);
        expect(handed[0]?.event.eventId).toBe(eventId);
        expect(handed[0]?.attempt).toBe(2);
        await waitFor('delivered', async () => (await deliveryStates(pool)).delivered === 1);
        const { rows } = await pool.query('SELECT claimed_by FROM outbox_deliveries');
        expect(rows).toEqual([{ claimed_by: rescuer.relayId }]);

        release();
        await waitFor('the late outcome', () => outcomes.length === 1);
        expect(outcomes[0]?.outcome).toBe('superseded');
        expect(await deliveryStates(pool)).toEqual({ delivered: 1 });
      });
    });

    describe('a destination that always fails', () => {
      it('dead-letters the event after the bound, holds its subject back, and delivers both in order once re-driven', async () => {
        const { pool, store, employees } = await fixture(2);
        let fixed = false;
        const handed: { id: string; result: DeliveryResult }[] = [];
        const outcomes: DeliveryOutcome[] = [];
        const relay = await createOutboxRelay({
          client: pool,
          destinations: [DESTINATION],
          pollIntervalMs: 20,
          retry: { minDelayMs: 20, maxAttempts: 3 },
          deliver: async (batch) =>
            batch.map((delivery) => {
              const result: DeliveryResult = fixed
                ? delivered
                : { outcome: 'retry', error: 'HTTP 500' };
              handed.push({ id: delivery.event.eventId, result });
              return result;
            }),
          onOutcome: (outcome) => outcomes.push(outcome),
        });
        cleanups.push(() => relay.stop());
        const first = await toggle(store, employees[0] as Employee);
        await waitFor('dead', async () => (await deliveryStates(pool)).dead === 1);
        const second = await toggle(store, employees[0] as Employee);
        const { rows } = await pool.query(
          'SELECT state, attempts, last_error FROM outbox_deliveries ORDER BY event_position',
        );
        expect(rows).toEqual([
          { state: 'dead', attempts: 3, last_error: 'HTTP 500' },
          { state: 'pending', attempts: 0, last_error: null },
        ]);
        expect(outcomes.map((o) => o.outcome)).toEqual(['retry', 'retry', 'dead']);
        const [backlog] = await outboxBacklog(pool);
        expect(backlog).toMatchObject({ destination: DESTINATION, pending: 1, dead: 1 });
        expect(backlog?.oldestPendingAgeMs).toBeGreaterThanOrEqual(0);
        await new Promise((resolve) => setTimeout(resolve, 200));
        // The second event of that employee was not handed over while the first is dead.
        expect(handed.map((h) => h.id)).toEqual([first, first, first]);

        fixed = true;
        expect(await redriveOutboxDeliveries(pool, { destination: DESTINATION })).toBe(1);
        await waitFor('both delivered', async () => (await deliveryStates(pool)).delivered === 2);
        expect(handed.slice(3).map((h) => h.id)).toEqual([first, second]);
        expect(await redriveOutboxDeliveries(pool)).toBe(0);
      });
    });

    describe("a relay's stats", () => {
      it('counts its outcomes, and reads the backlog of its own destinations only', async () => {
        const { pool, store, employees } = await fixture(2);
        // A destination no relay of this test delivers to: its backlog grows, but not in the stats.
        await registerOutboxDestinations(pool, [SECOND]);
        let failing = true;
        const relay = await createOutboxRelay({
          client: pool,
          destinations: [DESTINATION],
          pollIntervalMs: 20,
          retry: { minDelayMs: 20, maxAttempts: 2 },
          deliver: async (batch) =>
            batch.map(() => (failing ? { outcome: 'retry', error: 'HTTP 503' } : delivered)),
        });
        cleanups.push(() => relay.stop());
        expect(await relay.stats()).toEqual({
          outcomes: { delivered: 0, retry: 0, dead: 0, superseded: 0 },
          destinations: [
            { destination: DESTINATION, pending: 0, dead: 0, oldestPendingAgeMs: null },
          ],
          oldestPendingAgeMs: null,
        });

        await toggle(store, employees[0] as Employee);
        await waitFor('dead', async () => (await relay.stats()).outcomes.dead === 1);
        failing = false;
        await toggle(store, employees[1] as Employee);
        await waitFor('delivered', () => relay.counts().delivered === 1);
        const settled = await relay.stats();
        expect(settled).toEqual({
          outcomes: { delivered: 1, retry: 1, dead: 1, superseded: 0 },
          destinations: [
            { destination: DESTINATION, pending: 0, dead: 1, oldestPendingAgeMs: null },
          ],
          oldestPendingAgeMs: null,
        });
        expect(relay.counts()).toEqual(settled.outcomes);

        // A change held behind its subject's dead letter is pending: the oldest undelivered age.
        await toggle(store, employees[0] as Employee);
        const held = await relay.stats();
        expect(held.destinations).toMatchObject([
          { destination: DESTINATION, pending: 1, dead: 1 },
        ]);
        expect(held.oldestPendingAgeMs).toBeGreaterThanOrEqual(0);
        expect(await outboxBacklog(pool)).toMatchObject([
          { destination: DESTINATION, pending: 1, dead: 1 },
          { destination: SECOND, pending: 3, dead: 0 },
        ]);
      });
    });

    describe('retiring a destination', () => {
      it('deletes its deliveries and queues none for it any more', async () => {
        const { pool, store, employees } = await fixture(2);
        await registerOutboxDestinations(pool, [DESTINATION, SECOND]);
        await toggle(store, employees[0] as Employee);
        expect(await retireOutboxDestination(pool, SECOND)).toBe(1);
        await toggle(store, employees[1] as Employee);
        const { rows } = await pool.query('SELECT DISTINCT destination FROM outbox_deliveries');
        expect(rows).toEqual([{ destination: DESTINATION }]);
        expect(await retireOutboxDestination(pool, SECOND)).toBe(0);
      });
    });

    describe('waking on the write statement', () => {
      it('hands each change over on its notification on a PostgreSQL server (LISTEN), with no poll', async () => {
        const { pool, store, employees } = await fixture(1);
        const { changes, handed } = await handedOverOnNotify(pool, store, employees[0] as Employee);
        expect(handed).toEqual(changes);
      });

      it('polls a client that can only query', async () => {
        const { pool, store, employees } = await fixture(1);
        const handed: string[] = [];
        const relay = await createOutboxRelay({
          client: { query: (text, params) => pool.query(text, params) },
          destinations: [DESTINATION],
          pollIntervalMs: 100,
          deliver: async (batch) => {
            handed.push(...batch.map((delivery) => delivery.event.eventId));
            return batch.map(() => delivered);
          },
        });
        cleanups.push(() => relay.stop());
        const eventId = await toggle(store, employees[0] as Employee);
        await waitFor('the poll', () => handed.includes(eventId), 10_000);
        expect(handed).toEqual([eventId]);
      });
    });

    describe('the database stopped while a batch is handed over', () => {
      it('records the outcome when it is back, listens again, and loses nothing', async () => {
        const own = await startPostgresServer(server.options);
        cleanups.push(() => own.destroy());
        const { pool, store, employees } = await fixture(2, own.url, {
          connectionTimeoutMillis: 500,
        });
        let inBatch: () => void = () => {};
        let finishBatch: () => void = () => {};
        const batchStarted = new Promise<void>((resolve) => {
          inBatch = resolve;
        });
        const batchMayEnd = new Promise<void>((resolve) => {
          finishBatch = resolve;
        });
        const handed: string[] = [];
        const errors: string[] = [];
        const relay = await createOutboxRelay({
          client: pool,
          destinations: [DESTINATION],
          // Never polls in the test's time: only the listener's reconnection (which wakes the relay,
          // since notifications may have been missed) and the second change's notification can.
          pollIntervalMs: NO_POLL_MS,
          deliver: async (batch) => {
            handed.push(...batch.map((delivery) => delivery.event.eventId));
            inBatch();
            await batchMayEnd;
            return batch.map(() => delivered);
          },
          onError: (_error, context) => errors.push(context),
        });
        cleanups.push(() => relay.stop());
        const first = await toggle(store, employees[0] as Employee);
        await batchStarted;
        // A wake-up while the batch is out (a notification of another change) ...
        relay.wake();
        await own.stop();
        finishBatch();
        await waitFor('the failed outcome write', () => errors.includes('record outcomes'), 5000);
        await own.start();
        // ... does not make the relay retry in a busy loop while the database is down.
        expect(errors.filter((context) => context === 'record outcomes').length).toBeLessThan(5);
        // Recorded once the database is back, before anything else is claimed: no second hand-over.
        await waitFor('recorded', async () => {
          try {
            return (await deliveryStates(pool)).delivered === 1;
          } catch {
            return false;
          }
        });
        // The listening connection came back: a new change wakes the relay.
        await waitFor('listening again', async () => {
          const { rows } = await pool.query(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN%'",
          );
          return (rows[0] as { n: number }).n === 1;
        });
        const second = await toggle(store, employees[1] as Employee);
        await waitFor('the second hand-over', () => handed.includes(second), 20_000);
        expect(handed).toEqual([first, second]);
      });
    });
  });
}
