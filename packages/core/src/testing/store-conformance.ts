import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Guid } from '../identifiers.js';
import type { WorkforceStore } from '../ports.js';
import type { Employee, Restaurant } from '../records.js';
import {
  aJobReference,
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  newGuid,
  seedRecords,
} from './builders.js';
import {
  anEvent,
  byExternalId,
  byGuid,
  expectEvents,
  expectNotFound,
  expectStored,
  externalId,
  write,
} from './conformance-calls.js';
import {
  expectErrorType,
  expectFound,
  expectOk,
  expectSameRecord,
} from './conformance-failures.js';
import { describeRaces } from './conformance-races.js';
import { describeRefusedWrites } from './conformance-refusals.js';
import { describeRoundTrips } from './conformance-round-trips.js';

/** Options of {@link describeStoreConformance}. */
export interface StoreConformanceOptions {
  /** Per-test timeout in milliseconds. @default 20000 */
  readonly timeout?: number;
  /** How many concurrent callers the race tests start. @default 8 */
  readonly concurrency?: number;
  /**
   * fast-check's seed for the records the round-trip tests generate (a failure of theirs names the
   * seed it ran with, so that the same records can be generated again) and for the turns the race
   * tests' shuffled calls wait (the same seed interleaves them the same way). @default random
   */
  readonly seed?: number;
}

/** What each part of the suite shares: the store of the test, its restaurants, the options. */
export interface ConformanceContext {
  /** The store of the running test. */
  readonly store: () => WorkforceStore;
  readonly restaurantA: Restaurant;
  readonly restaurantB: Restaurant;
  readonly archivedRestaurant: Restaurant;
  readonly concurrency: number;
  readonly seed: number;
  /** Seeds the store with the three restaurants and `parts`; fails unless it was seeded. */
  seeded(parts: Parameters<typeof seedRecords>[0]): Promise<void>;
}

/**
 * The suite every store must pass: reads scoped to their restaurant, lookups by GUID and by
 * external id, compare-and-set on every write the use cases make (a stale version, a missing
 * record and another restaurant's record are refused and change nothing), events stored with
 * their change, seeding (into an empty store only), records over the whole shape of the spec given
 * back field by field, the use cases racing over the store, and closing. The race tests run on
 * the store as it is and with each call deferred (a microtask, a turn of the event loop, shuffled
 * turns), so that concurrent callers interleave even on a store that answers at once. Each
 * failure names the port method, the record and the field, and what was expected. Call it at the
 * top level of a vitest test file.
 *
 * @param name - the store's name in the test report
 * @param makeStore - returns a new, empty store; the suite closes it after each test
 * @param options - time limit, concurrency of the races, seed of the generated records
 * @example
 * ```ts
 * import { describeStoreConformance } from '@workforce-kit/core/testing';
 * import { createPostgresStore } from '@workforce-kit/postgres';
 * import { PGlite } from '@electric-sql/pglite';
 *
 * describeStoreConformance('PostgreSQL on PGlite', async () => createPostgresStore({ client: new PGlite(), ownsClient: true }));
 * ```
 */
export function describeStoreConformance(
  name: string,
  makeStore: () => WorkforceStore | Promise<WorkforceStore>,
  options: StoreConformanceOptions = {},
): void {
  const timeout = options.timeout ?? 20_000;

  describe(`store conformance: ${name}`, { timeout }, () => {
    let store: WorkforceStore;
    const restaurantA = aRestaurant();
    const restaurantB = aRestaurant();
    const archivedRestaurant = aRestaurant({
      general: { name: 'Closed for good', archived: true },
    });
    const ctx: ConformanceContext = {
      store: () => store,
      restaurantA,
      restaurantB,
      archivedRestaurant,
      concurrency: options.concurrency ?? 8,
      seed: options.seed ?? Math.floor(Math.random() * 2 ** 31),
      async seeded(parts) {
        expect(
          expectOk('seed', await store.seed(seedOf(parts))),
          'seed into an empty store',
        ).toEqual({ seeded: true });
      },
    };

    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    const seedOf = (parts: Parameters<typeof seedRecords>[0]) =>
      seedRecords({ restaurants: [restaurantA, restaurantB, archivedRestaurant], ...parts });
    const restaurantFound = async (guid: Guid) =>
      expectFound(`restaurants.findByGuid(${guid})`, await store.restaurants.findByGuid(guid));

    describe('seeding', () => {
      it('loads every record of a seed into an empty store', async () => {
        const employee = anEmployee(restaurantA.guid);
        const archived = anArchivedEmployee(restaurantA.guid);
        const shift = aShift(restaurantB.guid, { externalId: externalId('SCHEDULER:1') });
        await ctx.seeded({ employees: [employee, archived], shifts: [shift] });

        for (const restaurant of [restaurantA, archivedRestaurant]) {
          expectSameRecord(
            `restaurants.findByGuid(${restaurant.guid})`,
            await restaurantFound(restaurant.guid),
            restaurant,
            'the seeded restaurant',
          );
        }
        await expectStored(store, 'employees', employee, 'the seeded record');
        await expectStored(store, 'employees', archived, 'the seeded record');
        await expectStored(store, 'shifts', shift, 'the seeded record');
        await expectEvents(store, [], 'of a seed: none');
      });

      it('leaves a store that holds data unchanged, so seeding twice changes nothing', async () => {
        const first = anEmployee(restaurantA.guid);
        await ctx.seeded({ employees: [first] });
        const second = anEmployee(restaurantA.guid);
        const changedFirst = { ...first, firstName: 'Changed' };
        const outcome = await store.seed(seedOf({ employees: [changedFirst, second] }));

        expect(expectOk('seed', outcome), 'seed into a store that holds data').toEqual({
          seeded: false,
        });
        await expectStored(store, 'employees', first, 'the record of the first seed');
        await expectNotFound(
          store,
          'employees',
          restaurantA.guid,
          byGuid(second.guid),
          'a second seed loads nothing',
        );
      });

      it('accepts an empty seed', async () => {
        expect(expectOk('seed', await store.seed(seedRecords())), 'seed of nothing').toEqual({
          seeded: true,
        });
      });
    });

    describe('reads', () => {
      it('find an employee by GUID in its own restaurant only', async () => {
        const employee = anEmployee(restaurantA.guid);
        await ctx.seeded({ employees: [employee] });

        await expectStored(store, 'employees', employee, 'the seeded record');
        await expectNotFound(
          store,
          'employees',
          restaurantB.guid,
          byGuid(employee.guid),
          "another restaurant's employee is invisible",
        );
        await expectNotFound(
          store,
          'employees',
          restaurantA.guid,
          byGuid(newGuid()),
          'no such GUID',
        );
      });

      it('find an employee by external id in its own restaurant only', async () => {
        const employee = anEmployee(restaurantA.guid, { externalId: externalId('PAYROLL:10042') });
        await ctx.seeded({ employees: [employee] });

        await expectStored(store, 'employees', employee, 'the seeded record');
        await expectNotFound(
          store,
          'employees',
          restaurantB.guid,
          byExternalId('PAYROLL:10042'),
          "an external id names a record within its restaurant only: another restaurant's employee is invisible",
        );
        await expectNotFound(
          store,
          'employees',
          restaurantA.guid,
          byExternalId('payroll:10042'),
          'external ids are case-sensitive',
        );
      });

      it('find a shift by GUID and by external id in its own restaurant only', async () => {
        const shift = aShift(restaurantA.guid, { externalId: externalId('SCHEDULER:shift-7') });
        await ctx.seeded({ shifts: [shift] });

        await expectStored(store, 'shifts', shift, 'the seeded record');
        for (const id of [byGuid(shift.guid), byExternalId('SCHEDULER:shift-7')]) {
          await expectNotFound(
            store,
            'shifts',
            restaurantB.guid,
            id,
            "another restaurant's shift is invisible",
          );
        }
      });

      it('match external ids exactly (they are case-sensitive)', async () => {
        const shift = aShift(restaurantA.guid, { externalId: externalId('SCHEDULER:Shift-7') });
        await ctx.seeded({ shifts: [shift] });
        await expectNotFound(
          store,
          'shifts',
          restaurantA.guid,
          byExternalId('scheduler:shift-7'),
          'external ids are case-sensitive',
        );
      });

      it('keep external ids unique per restaurant, not across restaurants', async () => {
        const inA = aShift(restaurantA.guid, { externalId: externalId('POS:1') });
        const inB = aShift(restaurantB.guid, { externalId: externalId('POS:1') });
        await ctx.seeded({ shifts: [inA, inB] });

        await expectStored(store, 'shifts', inA, 'the seeded record');
        await expectStored(store, 'shifts', inB, 'the seeded record');
      });

      it('find restaurants by GUID, archived or not, and null for unknown ones', async () => {
        await ctx.seeded({});
        for (const restaurant of [restaurantB, archivedRestaurant]) {
          expectSameRecord(
            `restaurants.findByGuid(${restaurant.guid})`,
            await restaurantFound(restaurant.guid),
            restaurant,
            'the seeded restaurant',
          );
        }
        const unknown = newGuid();
        expectSameRecord(
          `restaurants.findByGuid(${unknown})`,
          await restaurantFound(unknown),
          null,
          'no restaurant',
        );
      });
    });

    describe('compare-and-set writes', () => {
      it('store the record at the next version, with its events', async () => {
        const employee = anEmployee(restaurantA.guid);
        await ctx.seeded({ employees: [employee] });
        const next = { ...employee, firstName: 'Mari' };
        const event = anEvent(employee, 'EmployeeArchived');

        const written = await write(store, 'employees', {
          record: next,
          expectedVersion: 1,
          events: [event],
        });

        expectSameRecord(
          'employees.write at version 1',
          expectOk('employees.write at version 1', written),
          { ...next, version: 2 },
          'the record written, at version 2,',
        );
        await expectStored(store, 'employees', { ...next, version: 2 }, 'the record written');
        await expectEvents(store, [event], 'of the write');
      });

      it('leave the objects they are given as they were: not frozen, and not kept', async () => {
        const employee = anEmployee(restaurantA.guid);
        await ctx.seeded({ employees: [employee] });
        const jobs = [aJobReference()];
        const next: Employee = { ...employee, jobReferences: jobs };
        const event = anEvent(employee, 'EmployeeArchived');

        await write(store, 'employees', { record: next, expectedVersion: 1, events: [event] });
        jobs.push(aJobReference());

        expect(
          [employee, next, jobs, jobs[0], event].map((given) => Object.isFrozen(given)),
          'employees.write froze an object it was given (record, list, element, event)',
        ).toEqual([false, false, false, false, false]);
        await expectStored(
          store,
          'employees',
          { ...employee, jobReferences: jobs.slice(0, 1), version: 2 },
          'the record as written (not the list its caller changed afterwards)',
        );
      });

      describeRefusedWrites(ctx);

      it('refuse a write that changes the external id, and change nothing', async () => {
        const shift = aShift(restaurantA.guid, { externalId: externalId('SCHEDULER:own') });
        await ctx.seeded({ shifts: [shift] });

        const renamed = await write(store, 'shifts', {
          record: { ...shift, externalId: externalId('SCHEDULER:other') },
          expectedVersion: 1,
          events: [anEvent(shift, 'ShiftDeleted')],
        });

        expect(
          expectErrorType(
            'shifts.write of a record with another external id',
            renamed,
            'IdentityChangeRefused',
          ),
        ).toEqual({ type: 'IdentityChangeRefused', guid: shift.guid });
        await expectStored(store, 'shifts', shift, 'the seeded record');
        await expectNotFound(
          store,
          'shifts',
          restaurantA.guid,
          byExternalId('SCHEDULER:other'),
          'a refused write changes no identity',
        );
        await expectEvents(store, [], 'of no change');
      });

      it('list events oldest first, and by restaurant', async () => {
        const inA = anEmployee(restaurantA.guid);
        const inB = aShift(restaurantB.guid);
        await ctx.seeded({ employees: [inA], shifts: [inB] });
        const first = anEvent(inA, 'EmployeeArchived');
        const second = anEvent(inB, 'ShiftDeleted');
        expectOk(
          'employees.write at version 1',
          await write(store, 'employees', { record: inA, expectedVersion: 1, events: [first] }),
        );
        expectOk(
          'shifts.write at version 1',
          await write(store, 'shifts', { record: inB, expectedVersion: 1, events: [second] }),
        );

        await expectEvents(store, [first, second], 'of two writes, oldest first');
        await expectEvents(store, [first], `of restaurant ${restaurantA.guid}`, restaurantA.guid);
        await expectEvents(store, [second], `of restaurant ${restaurantB.guid}`, restaurantB.guid);
      });
    });

    describeRoundTrips(ctx);
    describeRaces(ctx);

    describe('lifecycle', () => {
      it('answer ping while open', async () => {
        expectOk('ping', await store.ping());
      });

      it('fail calls after close with StorageUnavailable rather than throwing', async () => {
        await store.close();
        const call = `restaurants.findByGuid after close`;
        expectErrorType(
          call,
          await store.restaurants.findByGuid(restaurantA.guid),
          'StorageUnavailable',
        );
        expectErrorType('ping after close', await store.ping(), 'StorageUnavailable');
      });
    });
  });
}
