// Group commit through the real store, on PGlite and on each PostgreSQL server of the tests:
// concurrent changes share statements, and a change the database refuses fails alone.
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import type { RecordedEvent, Shift, WorkforceStore } from '@workforce-kit/core';
import { aRestaurant, aShift, seedRecords } from '@workforce-kit/core/testing';
import pg from 'pg';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createPostgresStore, type PostgresStoreOptions, type SqlClient } from '../src/index.js';
import { createDatabase } from '../src/testing/index.js';
import { POSTGRES_SERVERS } from './support.js';

const CLIENTS: Record<string, () => Promise<{ client: SqlClient; end: () => Promise<void> }>> = {
  PGlite: async () => {
    const db = await PGlite.create();
    return { client: db, end: () => db.close() };
  },
  ...Object.fromEntries(
    POSTGRES_SERVERS.map((server) => [
      server.name,
      async () => {
        const pool = new pg.Pool({ connectionString: await createDatabase(server.url) });
        return { client: pool, end: () => pool.end() };
      },
    ]),
  ),
};

const deletedEvent = (shift: Shift, eventId: string = randomUUID()): RecordedEvent => ({
  type: 'ShiftDeleted',
  restaurantGuid: shift.restaurantGuid,
  shiftGuid: shift.guid,
  occurredAt: '2026-03-01T12:00:00.000Z',
  eventId,
  requestId: `req-${randomUUID()}`,
});

for (const [name, open] of Object.entries(CLIENTS)) {
  describe(`group commit on ${name}`, () => {
    async function storeWith(
      shifts: readonly Shift[],
      options: Partial<PostgresStoreOptions> = {},
    ): Promise<{ store: WorkforceStore; batches: number[]; statements: string[] }> {
      const { client, end } = await open();
      const batches: number[] = [];
      // Every statement the store sends, to count what its reads cost.
      const statements: string[] = [];
      const counted: SqlClient = {
        query: (text, params) => {
          statements.push(text);
          return client.query(text, params);
        },
      };
      const store = await createPostgresStore({
        client: counted,
        onBatch: (size) => batches.push(size),
        ...options,
      });
      onTestFinished(async () => {
        await store.close();
        await end();
      });
      const restaurants = [...new Map(shifts.map((s) => [s.restaurantGuid, s])).keys()].map(
        (guid) => aRestaurant({ guid }),
      );
      await store.seed(seedRecords({ restaurants, shifts: [...shifts] }));
      return { store, batches, statements };
    }

    it('reads concurrent finds by GUID in shared statements, each its own record or none', async () => {
      const [here, there] = [aRestaurant(), aRestaurant()];
      const shifts = [
        ...Array.from({ length: 30 }, () => aShift(here.guid)),
        ...Array.from({ length: 10 }, () => aShift(there.guid)),
      ];
      const { store, statements } = await storeWith(shifts);
      const unknown = aShift(here.guid);
      // Each shift read under its restaurant; each of `there`'s also under `here`, which is none of
      // its business; and a GUID no restaurant has.
      const reads = [
        ...shifts.map((shift) => ({ restaurant: shift.restaurantGuid, shift, found: true })),
        ...shifts
          .filter((shift) => shift.restaurantGuid === there.guid)
          .map((shift) => ({ restaurant: here.guid, shift, found: false })),
        { restaurant: here.guid, shift: unknown, found: false },
      ];
      statements.length = 0;

      const results = await Promise.all(
        reads.map(({ restaurant, shift }) =>
          store.shifts.find(restaurant, { kind: 'guid', guid: shift.guid }),
        ),
      );

      results.forEach((result, i) => {
        const read = reads[i];
        expect(result._unsafeUnwrap()).toEqual(read?.found ? read.shift : null);
      });
      // Made together, the reads share statements.
      expect(statements.length).toBeGreaterThan(0);
      expect(statements.length).toBeLessThan(reads.length / 4);
    });

    it('commits concurrent changes in batches, each change in exactly one', async () => {
      const restaurant = aRestaurant();
      const shifts = Array.from({ length: 40 }, () => aShift(restaurant.guid));
      const { store, batches } = await storeWith(shifts);

      const results = await Promise.all(
        shifts.map((shift) =>
          store.shifts.write({
            record: { ...shift, deleted: true, deletedDate: '2026-03-01T12:00:00.000Z' },
            expectedVersion: 1,
            events: [deletedEvent(shift)],
          }),
        ),
      );

      expect(results.every((result) => result.isOk())).toBe(true);
      // Made together, the changes share statements.
      expect(batches.length).toBeLessThan(shifts.length);
      expect(batches.reduce((sum, size) => sum + size, 0)).toBe(shifts.length);
      expect((await store.events.list())._unsafeUnwrap()).toHaveLength(shifts.length);
    });

    it('keeps a batch to maxBatchSize changes', async () => {
      const restaurant = aRestaurant();
      const shifts = Array.from({ length: 20 }, () => aShift(restaurant.guid));
      const { store, batches } = await storeWith(shifts, { maxBatchSize: 4 });

      await Promise.all(
        shifts.map((shift) =>
          store.shifts.write({ record: shift, expectedVersion: 1, events: [deletedEvent(shift)] }),
        ),
      );

      expect(Math.max(...batches)).toBe(4);
      expect(batches.reduce((sum, size) => sum + size, 0)).toBe(shifts.length);
    });

    it('fails only the change the database refuses, and writes the others of its batch', async () => {
      const restaurant = aRestaurant();
      const shifts = Array.from({ length: 12 }, () => aShift(restaurant.guid));
      const { store, batches } = await storeWith(shifts);
      // An event id that is not a UUID: PostgreSQL refuses the statement that carries it.
      const poisoned = 5;

      const results = await Promise.all(
        shifts.map((shift, i) =>
          store.shifts.write({
            record: { ...shift, deleted: true, deletedDate: '2026-03-01T12:00:00.000Z' },
            expectedVersion: 1,
            events: [deletedEvent(shift, i === poisoned ? 'not-a-uuid' : randomUUID())],
          }),
        ),
      );

      expect(batches.some((size) => size > 1)).toBe(true);
      results.forEach((result, i) => {
        if (i === poisoned) {
          expect(result._unsafeUnwrapErr().type).toBe('StorageUnavailable');
        } else {
          expect(result._unsafeUnwrap()).toMatchObject({ guid: shifts[i]?.guid, version: 2 });
        }
      });
      const refused = shifts[poisoned] as Shift;
      expect(
        (
          await store.shifts.find(restaurant.guid, { kind: 'guid', guid: refused.guid })
        )._unsafeUnwrap(),
      ).toEqual(refused);
      const events = (await store.events.list())._unsafeUnwrap();
      expect(events).toHaveLength(shifts.length - 1);
      expect(
        events.some((event) => event.type === 'ShiftDeleted' && event.shiftGuid === refused.guid),
      ).toBe(false);
    });
  });
}
