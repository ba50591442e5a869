// Which relays a change wakes, on each PostgreSQL server of the tests: with several relays, a
// change's notification wakes the one that leads (elected by an advisory lock on its listening
// connection), not all of them; a leading relay whose loops are busy asks the others; a delivery
// that lets a later event of its subject go is followed at once, without a notification; and the
// lead passes to another listener when its holder closes or its connection is cut. No relay here
// polls in the test's time: only notifications (and the rules above) can hand a change over.
import type { Employee } from '@workforce-kit/core';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createOutboxRelay,
  listenForNotifications,
  type OutboxRelay,
  registerOutboxDestinations,
  type SqlClient,
} from '../src/index.js';
import { createDatabase } from '../src/testing/index.js';
import { delivered, outboxFixture, toggle, waitFor } from './outbox-support.js';
import { POSTGRES_SERVERS } from './support.js';

const DESTINATION = 'http://receiver.test/hook';
const NO_POLL_MS = 600_000;
let cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  cleanups = [];
});

/** A pool of its own (as a relay's process has) that counts the claims sent through it. */
function countingPool(url: string) {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  pool.on('error', () => {});
  cleanups.push(() => pool.end());
  const counter = { claims: 0, empty: 0 };
  const query = pool.query.bind(pool) as (
    text: string,
    params?: unknown[],
  ) => Promise<pg.QueryResult>;
  Object.assign(pool, {
    query: async (text: string, params?: unknown[]) => {
      const result = await query(text, params);
      if (text.includes('workforce_kit_claim_outbox_deliveries')) {
        counter.claims += 1;
        if (result.rows.length === 0) counter.empty += 1;
      }
      return result;
    },
  });
  return { pool, counter };
}

interface Handed {
  readonly relay: number;
  readonly eventId: string;
}

/** `n` relays, each over a counting pool of its own, that never poll in the test's time. */
async function relays(
  url: string,
  n: number,
  deliver: (relay: number, eventId: string) => Promise<void> = async () => {},
) {
  const handed: Handed[] = [];
  const pools: { claims: number; empty: number }[] = [];
  const started: OutboxRelay[] = [];
  for (let r = 0; r < n; r++) {
    const { pool, counter } = countingPool(url);
    pools.push(counter);
    const relay = await createOutboxRelay({
      client: pool,
      destinations: [DESTINATION],
      pollIntervalMs: NO_POLL_MS,
      retention: false,
      deliver: async (batch) => {
        for (const delivery of batch) {
          handed.push({ relay: r, eventId: delivery.event.eventId });
          await deliver(r, delivery.event.eventId);
        }
        return batch.map(() => delivered);
      },
    });
    started.push(relay);
    cleanups.push(() => relay.stop({ abandonAfterMs: 100 }));
  }
  const claims = () => pools.reduce((sum, counter) => sum + counter.claims, 0);
  const recorded = () => started.reduce((sum, relay) => sum + relay.counts().delivered, 0);
  return { handed, claims, recorded };
}
for (const server of POSTGRES_SERVERS) {
  describe(`on ${server.name}`, () => {
    describe('four relays on one database', () => {
      it('a change wakes the leading relay only: one claim per change, where each relay claimed', async () => {
        const url = await createDatabase(server.url);
        const { store, employees } = await outboxFixture(cleanups, url, 10);
        const four = await relays(url, 4);
        // Each relay's first look, at its start.
        await waitFor('the first claims', () => four.claims() === 4);
        const before = four.claims();
        const changes: string[] = [];
        for (const employee of employees) {
          // One at a time, each recorded before the next: the leading relay is asleep when it comes.
          const eventId = await toggle(store, employee);
          changes.push(eventId);
          await waitFor('recorded', () => four.recorded() === changes.length);
        }
        expect(four.handed.map((each) => each.eventId)).toEqual(changes);
        expect(new Set(four.handed.map((each) => each.relay)).size).toBe(1);
        expect(four.claims() - before).toBe(changes.length);
      });

      it('a leading relay whose loops are all busy asks the others, and one of them hands the change over', async () => {
        const url = await createDatabase(server.url);
        const { store, employees } = await outboxFixture(cleanups, url, 2);
        const [first, second] = employees as [Employee, Employee];
        let release: () => void = () => {};
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        let busy: number | undefined;
        const three = await relays(url, 3, async (relay) => {
          // The first relay to be handed anything keeps it until the end of the test.
          busy ??= relay;
          if (relay === busy) await held;
        });
        // Released before the relays stop (cleanups run last first).
        cleanups.push(async () => release());
        const stuck = await toggle(store, first);
        await waitFor('the first hand-over', () => three.handed.length === 1);
        const helped = await toggle(store, second);
        await waitFor('the second hand-over', () => three.handed.length === 2);
        expect(three.handed.map((each) => each.eventId)).toEqual([stuck, helped]);
        expect(three.handed[0]?.relay).toBe(busy);
        expect(three.handed[1]?.relay).not.toBe(busy);
      });
    });

    describe('a delivery that lets a later event of its subject go', () => {
      it('is followed by a claim at once: the later event is handed over with no notification', async () => {
        const url = await createDatabase(server.url);
        const { pool, store, employees } = await outboxFixture(cleanups, url, 1);
        const employee = employees[0] as Employee;
        await registerOutboxDestinations(pool, [DESTINATION]);
        // Both written, and notified, before the relay listens: its first claim takes the first
        // (the second waits behind it), and only the first's delivery can make it claim again.
        const changes = [await toggle(store, employee), await toggle(store, employee)];
        const one = await relays(url, 1);
        await waitFor('both handed over', () => one.handed.length === 2);
        expect(one.handed.map((each) => each.eventId)).toEqual(changes);
      });
    });

    describe('the lead among listeners', () => {
      /** `n` listeners of one channel sharing a lead key, each over a pool of its own. */
      async function listeners(url: string, n: number, retryMs: number) {
        const all = [];
        for (let i = 0; i < n; i++) {
          // Idle connections are kept: one that went back to the pool with the lock would keep it.
          const pool = new pg.Pool({ connectionString: url, max: 2, idleTimeoutMillis: 0 });
          pool.on('error', () => {});
          cleanups.push(() => pool.end());
          const listener = await listenForNotifications(
            pool as SqlClient,
            'workforce_kit_lead_test',
            { onNotify: () => {}, onError: () => {} },
            { lead: { key: 7438291099n, retryMs } },
          );
          if (listener === undefined) throw new Error('a pool can listen');
          cleanups.push(() => listener.close());
          all.push(listener);
        }
        return all;
      }

      const leaders = (all: readonly { leading: boolean }[]) =>
        all.flatMap((listener, i) => (listener.leading ? [i] : []));

      it('is held by one listener at a time, and passes to another when its holder closes or its connection is cut', async () => {
        const url = await createDatabase(server.url);
        const all = await listeners(url, 3, 50);
        expect(leaders(all)).toEqual([0]);
        await all[0]?.close();
        await waitFor('a new lead', () => leaders(all).length === 1);
        const [next] = leaders(all);
        expect(next).not.toBe(0);

        // The holder's connection cut by the server: the lock goes with the session.
        const admin = new pg.Pool({ connectionString: url, max: 1 });
        cleanups.push(() => admin.end());
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_locks
         WHERE locktype = 'advisory' AND granted AND objid = (7438291099::bigint & 4294967295)::oid`,
        );
        await waitFor('the lead moved', () => {
          const now = leaders(all);
          return now.length === 1 && now[0] !== next;
        });
        expect(leaders(all)).toEqual([[1, 2].find((i) => i !== next)]);
      });
    });
  });
}
