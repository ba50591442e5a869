import {
  archiveEmployee,
  createMemoryStore,
  DEFAULT_MAX_ATTEMPTS,
  deleteShift,
  type Employee,
  type EmployeeRepository,
  type ExternalId,
  type Guid,
  getRestaurant,
  parseGuid,
  parseRecordId,
  type RestaurantRepository,
  type Shift,
  type ShiftRepository,
  storageUnavailable,
  toResultAsync,
  unarchiveEmployee,
  versionConflict,
} from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  newGuid,
  seedRecords,
} from '@workforce-kit/core/testing';
import { errAsync, okAsync, Result } from 'neverthrow';
import { describe, expect, it, vi } from 'vitest';

const restaurant = aRestaurant();
const other = aRestaurant();
const clock = { now: () => new Date('2026-03-01T12:00:00.000Z') };
let nextId = 0;
const ids = { newId: () => `event-${++nextId}` };

const byGuid = (guid: Guid) => ({ kind: 'guid', guid }) as const;
const byExternalId = (externalId: string) =>
  ({ kind: 'externalId', externalId: externalId as ExternalId }) as const;

/** A repository whose every method fails the test if called. */
function untouchable<T extends object>(): T {
  return new Proxy({} as T, {
    get: (_target, name) => () => {
      throw new Error(`the store was called (${String(name)})`);
    },
  });
}

describe('parsed identifiers', () => {
  it.each([
    ['restaurant', { restaurant: 'not-a-guid', employee: newGuid() }],
    ['employeeId', { restaurant: restaurant.guid, employee: '42' }],
  ])(
    'a malformed %s is refused by its parser, so no use case runs and the store is untouched',
    async (field, input) => {
      const deps = { employees: untouchable<EmployeeRepository>(), clock, ids };
      // As the TSDoc of the use cases shows: the identifiers a client sent are parsed first.
      const parsed = Result.combine([
        parseGuid(input.restaurant, 'restaurant'),
        parseGuid(input.employee, 'employeeId'),
      ]);
      const results = [
        await parsed.asyncAndThen(([restaurant, employee]) =>
          toResultAsync(unarchiveEmployee(deps, { restaurant, employee, requestId: 'r' })),
        ),
        await parsed.asyncAndThen(([restaurant, employee]) =>
          toResultAsync(
            archiveEmployee(deps, { restaurant, employee: byGuid(employee), requestId: 'r' }),
          ),
        ),
      ];
      for (const result of results) {
        expect(result._unsafeUnwrapErr()).toMatchObject({ type: 'MalformedIdentifier', field });
      }
    },
  );

  it('names the record the parser made, whatever letter case or form the client sent', async () => {
    const shift = aShift(restaurant.guid, { externalId: 'SCHEDULER:7' as ExternalId });
    const store = createMemoryStore(seedRecords({ restaurants: [restaurant], shifts: [shift] }));
    const deps = { shifts: store.shifts, clock, ids };
    for (const sent of [shift.guid.toUpperCase(), 'SCHEDULER:7']) {
      const result = await parseRecordId(sent, 'shiftId').asyncAndThen((parsed) =>
        toResultAsync(
          deleteShift(deps, { restaurant: restaurant.guid, shift: parsed, requestId: 'r' }),
        ),
      );
      expect(result._unsafeUnwrap().record).toMatchObject({ guid: shift.guid, deleted: true });
    }
    expect(store.recordedEvents()).toHaveLength(1);
  });

  it('answers another restaurant as not found, without reading', async () => {
    const deps = { restaurants: untouchable<RestaurantRepository>() };
    const otherRestaurant = await getRestaurant(deps, {
      restaurant: restaurant.guid,
      requested: other.guid,
      includeArchived: true,
    });
    const notAGuid = await getRestaurant(deps, {
      restaurant: restaurant.guid,
      requested: 'x',
      includeArchived: true,
    });
    expect(otherRestaurant._unsafeUnwrapErr()).toMatchObject({
      type: 'RestaurantNotFound',
      reason: 'not-the-context',
    });
    expect(notAGuid._unsafeUnwrapErr()).toMatchObject({
      type: 'RestaurantNotFound',
      reason: 'malformed-guid',
    });
  });
});

describe('storage failures', () => {
  const failure = storageUnavailable('test', new Error('connection refused'));

  it('pass a failed read through unchanged, for every use case', async () => {
    const employees: EmployeeRepository = {
      find: () => errAsync(failure),
      write: () => errAsync(failure),
    };
    const shifts: ShiftRepository = {
      find: () => errAsync(failure),
      write: () => errAsync(failure),
    };
    const restaurants: RestaurantRepository = { findByGuid: () => errAsync(failure) };
    const employee = newGuid();
    const command = { restaurant: restaurant.guid, requestId: 'r' };

    expect(
      (
        await unarchiveEmployee({ employees, clock, ids }, { ...command, employee })
      )._unsafeUnwrapErr(),
    ).toBe(failure);
    expect(
      (
        await archiveEmployee({ employees, clock, ids }, { ...command, employee: byGuid(employee) })
      )._unsafeUnwrapErr(),
    ).toBe(failure);
    expect(
      (
        await deleteShift({ shifts, clock, ids }, { ...command, shift: byExternalId('A:1') })
      )._unsafeUnwrapErr(),
    ).toBe(failure);
    expect(
      (
        await getRestaurant(
          { restaurants },
          { restaurant: restaurant.guid, requested: restaurant.guid, includeArchived: false },
        )
      )._unsafeUnwrapErr(),
    ).toBe(failure);
  });

  it('pass a failed write through unchanged, without retrying', async () => {
    const employee = anArchivedEmployee(restaurant.guid);
    const find = vi.fn(() => okAsync<Employee | null>(employee));
    const employees: EmployeeRepository = { find, write: () => errAsync(failure) };
    const result = await unarchiveEmployee(
      { employees, clock, ids },
      { restaurant: restaurant.guid, employee: employee.guid, requestId: 'r' },
    );
    expect(result._unsafeUnwrapErr()).toBe(failure);
    expect(find).toHaveBeenCalledTimes(1);
  });
});

describe('version conflicts', () => {
  it('re-read and decide again on every conflict, and give up with WriteContention', async () => {
    const employee = anArchivedEmployee(restaurant.guid);
    const find = vi.fn(() => okAsync<Employee | null>(employee));
    const write = vi.fn(() => errAsync(versionConflict(employee.guid, 1)));
    const result = await unarchiveEmployee(
      { employees: { find, write }, clock, ids, maxAttempts: 3 },
      { restaurant: restaurant.guid, employee: employee.guid, requestId: 'r' },
    );
    expect(result._unsafeUnwrapErr()).toEqual({
      type: 'WriteContention',
      subject: employee.guid,
      attempts: 3,
    });
    expect(find).toHaveBeenCalledTimes(3);
    expect(write).toHaveBeenCalledTimes(3);
  });

  it(`try ${DEFAULT_MAX_ATTEMPTS} times by default, naming a shift by the id it was asked by`, async () => {
    const shift = aShift(restaurant.guid, { externalId: 'SCHEDULER:9' as ExternalId });
    const find = vi.fn(() => okAsync<Shift | null>(shift));
    const result = await deleteShift(
      { shifts: { find, write: () => errAsync(versionConflict(shift.guid, 1)) }, clock, ids },
      { restaurant: restaurant.guid, shift: byExternalId('SCHEDULER:9'), requestId: 'r' },
    );
    expect(result._unsafeUnwrapErr()).toEqual({
      type: 'WriteContention',
      subject: 'SCHEDULER:9',
      attempts: DEFAULT_MAX_ATTEMPTS,
    });
    expect(find).toHaveBeenCalledTimes(DEFAULT_MAX_ATTEMPTS);
  });

  it('succeed after a conflict when the re-read state still allows the change', async () => {
    const employee = anEmployee(restaurant.guid);
    const store = createMemoryStore(
      seedRecords({ restaurants: [restaurant], employees: [employee] }),
    );
    let conflicts = 1;
    const employees: EmployeeRepository = {
      find: store.employees.find,
      write: (change) =>
        conflicts-- > 0
          ? errAsync(versionConflict(change.record.guid, 1))
          : store.employees.write(change),
    };
    const result = await archiveEmployee(
      { employees, clock, ids },
      { restaurant: restaurant.guid, employee: byGuid(employee.guid), requestId: 'r' },
    );
    expect(result._unsafeUnwrap().record).toMatchObject({ deleted: true, version: 2 });
    expect(store.recordedEvents()).toHaveLength(1);
  });
});

describe('what a store returns is checked', () => {
  it('a record of another restaurant is not found, whatever the store says', async () => {
    const theirs = anArchivedEmployee(other.guid);
    const write = vi.fn();
    const result = await unarchiveEmployee(
      { employees: { find: () => okAsync(theirs), write }, clock, ids },
      { restaurant: restaurant.guid, employee: theirs.guid, requestId: 'r' },
    );
    expect(result._unsafeUnwrapErr()).toEqual({
      type: 'EmployeeNotFound',
      restaurantGuid: restaurant.guid,
      employeeId: { kind: 'guid', guid: theirs.guid },
    });
    expect(write).not.toHaveBeenCalled();
  });

  it('another record than the one asked for is not found', async () => {
    const shift = aShift(restaurant.guid, { externalId: 'SCHEDULER:1' as ExternalId });
    const shifts: ShiftRepository = { find: () => okAsync(shift), write: vi.fn() };
    const byOtherExternalId = await deleteShift(
      { shifts, clock, ids },
      { restaurant: restaurant.guid, shift: byExternalId('SCHEDULER:2'), requestId: 'r' },
    );
    const byOtherGuid = await deleteShift(
      { shifts, clock, ids },
      { restaurant: restaurant.guid, shift: byGuid(newGuid()), requestId: 'r' },
    );
    expect(byOtherExternalId._unsafeUnwrapErr().type).toBe('ShiftNotFound');
    expect(byOtherGuid._unsafeUnwrapErr().type).toBe('ShiftNotFound');
  });
});

describe('events', () => {
  it('carry an id from the id source and the request id', async () => {
    const shift = aShift(restaurant.guid);
    const store = createMemoryStore(seedRecords({ restaurants: [restaurant], shifts: [shift] }));
    const result = await deleteShift(
      { shifts: store.shifts, clock, ids: { newId: () => 'event-fixed' } },
      { restaurant: restaurant.guid, shift: byGuid(shift.guid), requestId: 'req-42' },
    );
    const expected = {
      type: 'ShiftDeleted',
      restaurantGuid: restaurant.guid,
      shiftGuid: shift.guid,
      occurredAt: '2026-03-01T12:00:00.000Z',
      eventId: 'event-fixed',
      requestId: 'req-42',
    };
    expect(result._unsafeUnwrap().events).toEqual([expected]);
    expect(store.recordedEvents()).toEqual([expected]);
  });

  it('are not made for a no-op, and nothing is written', async () => {
    const shift = aShift(restaurant.guid, {
      deleted: true,
      deletedDate: '2026-02-01T00:00:00.000Z',
    });
    const write = vi.fn();
    const newId = vi.fn(() => 'never');
    const result = await deleteShift(
      { shifts: { find: () => okAsync(shift), write }, clock, ids: { newId } },
      { restaurant: restaurant.guid, shift: byGuid(shift.guid), requestId: 'r' },
    );
    expect(result._unsafeUnwrap()).toEqual({ record: shift, events: [] });
    expect(write).not.toHaveBeenCalled();
    expect(newId).not.toHaveBeenCalled();
  });
});
