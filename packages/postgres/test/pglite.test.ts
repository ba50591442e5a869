import { PGlite } from '@electric-sql/pglite';
import { aRestaurant, describeStoreConformance } from '@workforce-kit/core/testing';
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

for (const cacheRestaurants of [false, true]) {
  describeStoreConformance(
    `postgres (PGlite${cacheRestaurants ? ', restaurants cached' : ''})`,
    async () => {
      const store = await createPostgresStore({ client: db, cacheRestaurants });
      await emptyTables(db);
      return store;
    },
  );
}

describe('cacheRestaurants', () => {
  it('keeps no absent restaurant, and empties itself when the store seeds', async () => {
    await emptyTables(db);
    const store = await createPostgresStore({ client: db, cacheRestaurants: true });
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
});
