// The conformance suite's own parts: its failures name the port method, the record, the field,
// what was expected and what came back; its deferred store interleaves concurrent callers of a
// store that answers at once; its generated records cover the shape the spec allows.

import * as neverthrow from 'neverthrow';
import { err, ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';
import {
  ResultAsync as CoreResultAsync,
  err as coreErr,
  errAsync as coreErrAsync,
  ok as coreOk,
  okAsync as coreOkAsync,
  createMemoryStore,
  type Employee,
  toResultAsync,
  unarchiveEmployee,
  type WorkforceStore,
} from '../src/index.js';
import { deferredStore } from '../src/testing/asynchronous-store.js';
import { expectStored } from '../src/testing/conformance-calls.js';
import {
  expectErrorType,
  expectOk,
  expectSameRecord,
} from '../src/testing/conformance-failures.js';
import { LONGEST_TEXT, recordsToRoundTrip } from '../src/testing/conformance-records.js';
import { anArchivedEmployee, aRestaurant, seedRecords } from '../src/testing/index.js';

const restaurant = aRestaurant();

describe("a store's author", () => {
  it("takes neverthrow's constructors from the core, the very copy the ports use", async () => {
    expect(coreOk(1)).toBeInstanceOf(neverthrow.Ok);
    expect(coreErr('e')).toBeInstanceOf(neverthrow.Err);
    expect(CoreResultAsync).toBe(neverthrow.ResultAsync);
    const later = coreOkAsync(1);
    expect(later).toBeInstanceOf(neverthrow.ResultAsync);
    expect(toResultAsync(later), 'adopted as it is, not wrapped').toBe(later);
    expect((await coreErrAsync('e'))._unsafeUnwrapErr()).toBe('e');
  });
});

describe('a failure of the suite', () => {
  it('names the call and the error value, never a bare unwrap', () => {
    const error = { type: 'StorageUnavailable', operation: 'find' };
    expect(() => expectOk('employees.find(restaurant r, GUID g)', err(error))).toThrow(
      'employees.find(restaurant r, GUID g) failed with `{"type":"StorageUnavailable","operation":"find"}`; it should have succeeded',
    );
    expect(() =>
      expectErrorType(
        'employees.write at version 1',
        ok<{ version: number }, { type: 'VersionConflict' }>({ version: 2 }),
        'VersionConflict',
      ),
    ).toThrow(
      'employees.write at version 1 succeeded with `{"version":2}`; expected VersionConflict',
    );
  });

  it('names the field, what came back and what was expected', () => {
    const seeded = anArchivedEmployee(restaurant.guid, { jobReferences: [] });
    const { jobReferences: _dropped, ...returned } = seeded;
    expect(() => expectSameRecord('employees.find', returned, seeded, 'the seeded record')).toThrow(
      `employees.find returned \`jobReferences\` absent; the seeded record has \`[]\`\n(record ${seeded.guid} of restaurant ${restaurant.guid})`,
    );
    expect(() =>
      expectSameRecord(
        'employees.find',
        {
          ...seeded,
          wageOverrides: [
            { jobReference: { guid: 'g', entityType: 'RestaurantJob' }, wage: '21.5' },
          ],
        },
        {
          ...seeded,
          wageOverrides: [{ jobReference: { guid: 'g', entityType: 'RestaurantJob' }, wage: 21.5 }],
        },
        'the seeded record',
      ),
    ).toThrow('returned `wageOverrides[0].wage` `"21.5"`; the seeded record has `21.5`');
  });

  it('shows a long text cut, with its length and where it differs', () => {
    const long = 'x'.repeat(600);
    expect(() =>
      expectSameRecord(
        'employees.find',
        { firstName: `${long}a` },
        { firstName: `${long}b` },
        'the seeded record',
      ),
    ).toThrow(
      '(601 characters); the seeded record has `"xxxxxxxxxxxxxxxxxxxxxxxx…"` (601 characters) (first different at character 600)',
    );
  });

  it('says what was found where nothing should be', async () => {
    const store = createMemoryStore();
    const employee = anArchivedEmployee(restaurant.guid);
    await expect(expectStored(store, 'employees', employee, 'the seeded record')).rejects.toThrow(
      `employees.find(restaurant ${restaurant.guid}, GUID ${employee.guid}) returned \`null\`; expected the seeded record, record ${employee.guid}`,
    );
  });
});

/** The memory store without its version check on employee writes (each write at the version stored), logging its calls. */
function carelessStore(calls: string[]) {
  const employee = anArchivedEmployee(restaurant.guid);
  const memory = createMemoryStore(
    seedRecords({ restaurants: [restaurant], employees: [employee] }),
  );
  const store: WorkforceStore = {
    ...memory,
    employees: {
      find: (restaurantGuid, id) => {
        calls.push('find');
        return memory.employees.find(restaurantGuid, id);
      },
      write: (change) => {
        calls.push('write');
        const { restaurantGuid, guid } = change.record;
        // The memory store answers at once: a Result.
        const stored = memory.employees.find(restaurantGuid, { kind: 'guid', guid }) as Result<
          Employee | null,
          unknown
        >;
        const version = stored.isOk() ? (stored.value?.version ?? 0) : 0;
        return memory.employees.write({ ...change, expectedVersion: version });
      },
    },
  };
  const unarchiveTwice = (over: WorkforceStore) =>
    Promise.all(
      ['r1', 'r2'].map(async (requestId) => {
        const deps = {
          employees: over.employees,
          clock: { now: () => new Date() },
          ids: { newId: () => requestId },
        };
        const result = await unarchiveEmployee(deps, {
          restaurant: restaurant.guid,
          employee: employee.guid,
          requestId,
        });
        return result.isOk();
      }),
    );
  return { store, unarchiveTwice };
}

describe('the deferred store', () => {
  it('as given, a store that answers at once lets each caller read and write before the next: a missing version check hides', async () => {
    const calls: string[] = [];
    const { store, unarchiveTwice } = carelessStore(calls);
    expect(await unarchiveTwice(store)).toEqual([true, false]);
    expect(calls).toEqual(['find', 'write', 'find']);
  });

  it.each(['microtask', 'event-loop turn'] as const)(
    'deferred by a %s, lets every concurrent caller read before any writes: the missing version check shows',
    async (deferral) => {
      const calls: string[] = [];
      const { store, unarchiveTwice } = carelessStore(calls);
      expect(await unarchiveTwice(deferredStore(store, deferral))).toEqual([true, true]);
      expect(calls).toEqual(['find', 'find', 'write', 'write']);
    },
  );

  it('deferred by shuffled turns, runs concurrent calls out of the order they were made in', async () => {
    const calls: string[] = [];
    const memory = createMemoryStore();
    const logging: WorkforceStore = {
      ...memory,
      restaurants: {
        findByGuid: (guid) => {
          calls.push(guid);
          return memory.restaurants.findByGuid(guid);
        },
      },
    };
    const deferred = deferredStore(logging, 'shuffled turns');
    const guids = Array.from({ length: 20 }, () => aRestaurant().guid);
    // 20 calls each waiting 0 to 3 turns at random: all in order has odds of about 1 in 10^9.
    await Promise.all(guids.map((guid) => deferred.restaurants.findByGuid(guid)));
    expect(calls).not.toEqual(guids);
    expect([...calls].sort()).toEqual([...guids].sort());
  });

  it('names a call that throws, which a store never does', async () => {
    const memory = createMemoryStore();
    const throwing: WorkforceStore = {
      ...memory,
      restaurants: {
        findByGuid: () => {
          throw new TypeError('boom');
        },
      },
    };
    await expect(
      Promise.resolve(deferredStore(throwing, 'microtask').restaurants.findByGuid(restaurant.guid)),
    ).rejects.toThrow(
      'restaurants.findByGuid threw TypeError: boom: a store answers a failure with an error (StorageUnavailable), and never throws',
    );
  });
});

describe('the generated records', () => {
  it('have every optional field absent and present, empty and full lists, and the longest values', () => {
    const { employees, shifts } = recordsToRoundTrip(restaurant.guid, 42, 10);
    const fields: (keyof Employee)[] = [
      'externalId',
      'firstName',
      'email',
      'jobReferences',
      'wageOverrides',
      'swipeCard',
    ];
    for (const field of fields) {
      expect(
        employees.some((e) => e[field] === undefined),
        `${field} absent`,
      ).toBe(true);
      expect(
        employees.some((e) => e[field] !== undefined),
        `${field} present`,
      ).toBe(true);
    }
    expect(employees.some((e) => e.jobReferences?.length === 0)).toBe(true);
    expect(employees.some((e) => (e.jobReferences?.length ?? 0) > 0)).toBe(true);
    expect(employees.some((e) => [...(e.firstName ?? '')].length === LONGEST_TEXT)).toBe(true);
    expect(
      employees.some(
        (e) =>
          e.externalId !== undefined &&
          [...e.externalId.slice(e.externalId.indexOf(':') + 1)].length === 256,
      ),
    ).toBe(true);
    expect(employees.some((e) => /[^\u0020-\u00ff]/.test(e.lastName ?? ''))).toBe(true);
    expect(
      shifts.some(
        (s) => s.scheduleConfig !== undefined && Object.keys(s.scheduleConfig).length === 0,
      ),
    ).toBe(true);
    expect(new Set(employees.map((e) => e.guid)).size).toBe(employees.length);
    expect(recordsToRoundTrip(restaurant.guid, 42, 10).employees.slice(4)).toEqual(
      employees.slice(4),
    );
  });
});
