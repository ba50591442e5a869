import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { archive } from '@workforce-kit/core';
import { anEmployee, aRestaurant, describeStoreConformance } from '@workforce-kit/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { emptyTables } from './support.js';

// One embedded database for the suite (starting one takes a second); emptied before each test.
let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db.close();
});

for (const soleWriter of [false, true]) {
  describeStoreConformance(
    `postgres (PGlite${soleWriter ? ', sole writer: reads cached' : ''})`,
    async () => {
      const store = await createPostgresStore({ client: db, soleWriter });
      await emptyTables(db);
      return store;
    },
  );
}

describe('soleWriter', () => {
  it('keeps no absent restaurant, and empties itself when the store seeds', async () => {
    await emptyTables(db);
    const store = await createPostgresStore({ client: db, soleWriter: true });
    const first = aRestaurant({ general: { name: 'First', archived: false } });
    expect((await store.restaurants.findByGuid(first.guid))._unsafeUnwrap()).toBeNull();

    await store.seed({ restaurants: [first], employees: [], shifts: [] });
    expect((await store.restaurants.findByGuid(first.guid))._unsafeUnwrap()).toEqual(first);

    // Seeding is how restaurants change: a new seed into the emptied database is read afresh.
    await emptyTables(db);
    const renamed = { ...first, general: { ...first.general, name: 'Renamed' } };
    await store.seed({ restaurants: [renamed], employees: [], shifts: [] });
    expect((await store.restaurants.findByGuid(first.guid))._unsafeUnwrap()).toEqual(renamed);
  });

  it('reads a record once, then as it last wrote it; a write whose outcome is not known drops it', async () => {
    await emptyTables(db);
    const statements: string[] = [];
    let failWrites = false;
    const counting = {
      query: (text: string, params?: unknown[]) => {
        statements.push(text);
        if (failWrites && text.includes('workforce_kit_change_record')) {
          return Promise.reject(new Error('connection lost'));
        }
        return db.query(text, params);
      },
    };
    const store = await createPostgresStore({ client: counting, soleWriter: true });
    const restaurant = aRestaurant();
    const employee = anEmployee(restaurant.guid, { externalId: 'PAYROLL:7' as never });
    await store.seed({ restaurants: [restaurant], employees: [employee], shifts: [] });
    const byGuid = { kind: 'guid', guid: employee.guid } as const;
    const byExternalId = { kind: 'externalId', externalId: 'PAYROLL:7' } as never;
    const reads = () =>
      statements.filter((text) => text.startsWith('SELECT data, version FROM employees')).length;

    statements.length = 0;
    const read = (await store.employees.find(restaurant.guid, byGuid))._unsafeUnwrap();
    expect(read).toEqual(employee);
    expect((await store.employees.find(restaurant.guid, byExternalId))._unsafeUnwrap()).toEqual(
      read,
    );
    expect(reads()).toBe(1);

    const { record, events } = archive(employee, new Date('2026-03-01T00:00:00.000Z'));
    const change = {
      record: { ...record, version: 2 },
      expectedVersion: 1,
      events: events.map((event) => ({ ...event, eventId: randomUUID(), requestId: 'test' })),
    };
    const stored = (await store.employees.write(change))._unsafeUnwrap();
    expect((await store.employees.find(restaurant.guid, byGuid))._unsafeUnwrap()).toEqual(stored);
    expect(reads()).toBe(1);
    // Another restaurant never sees it, cached or not.
    expect((await store.employees.find(aRestaurant().guid, byGuid))._unsafeUnwrap()).toBeNull();

    // A write at a stale version fails, and keeps the record as the database holds it (which its
    // statement gave back): the next read needs no statement.
    expect((await store.employees.write(change))._unsafeUnwrapErr().type).toBe('VersionConflict');
    const afresh = (await store.employees.find(restaurant.guid, byGuid))._unsafeUnwrap();
    expect(afresh).toEqual(stored);
    expect(reads()).toBe(2);

    // A write whose outcome is not known (its statement failed) drops it, and the next read goes
    // to the database again.
    failWrites = true;
    const next = { ...change, record: { ...change.record, version: 3 }, expectedVersion: 2 };
    expect((await store.employees.write(next))._unsafeUnwrapErr().type).toBe('StorageUnavailable');
    failWrites = false;
    expect((await store.employees.find(restaurant.guid, byGuid))._unsafeUnwrap()).toEqual(stored);
    expect(reads()).toBe(3);
  });
});
