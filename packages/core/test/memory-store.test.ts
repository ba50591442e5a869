import { createMemoryStore, deleteShift } from '@workforce-kit/core';
import {
  aRestaurant,
  aShift,
  asynchronousStore,
  describeStoreConformance,
  newGuid,
  seedRecords,
} from '@workforce-kit/core/testing';
import { describe, expect, it } from 'vitest';

// The memory store answers at once; wrapped, it answers later, as a database does: the same suite,
// races included, holds on both.
describeStoreConformance('memory', () => createMemoryStore());
describeStoreConformance('memory, answering asynchronously', () =>
  asynchronousStore(createMemoryStore()),
);

describe('the memory store event log', () => {
  it('keeps the most recent events only, oldest first', async () => {
    const restaurant = aRestaurant();
    const shifts = Array.from({ length: 7 }, () => aShift(restaurant.guid));
    const store = createMemoryStore(seedRecords({ restaurants: [restaurant], shifts }), {
      eventLogLimit: 3,
    });
    const deps = {
      shifts: store.shifts,
      clock: { now: () => new Date() },
      ids: { newId: () => newGuid() },
    };
    for (const shift of shifts) {
      await deleteShift(deps, {
        restaurant: restaurant.guid,
        shift: { kind: 'guid', guid: shift.guid },
        requestId: shift.guid,
      });
    }
    const expected = shifts.slice(-3).map((shift) => shift.guid);
    expect(store.recordedEvents().map((event) => event.requestId)).toEqual(expected);
    expect((await store.events.list())._unsafeUnwrap().map((event) => event.requestId)).toEqual(
      expected,
    );
  });
});
