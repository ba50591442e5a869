// The use cases over a store that answers their reads before a change (ChangeRead) from records it
// keeps, which another process may have changed since: a change decided from such a record stands
// only once its write's version check confirms it, and a decision to write nothing (refused, a
// no-op, not found) is made again from the record as it stands. A store that answers every read
// as it stands is read once.
import {
  archiveEmployee,
  type ChangeRead,
  type ConditionalWrite,
  createMemoryStore,
  deleteShift,
  type Employee,
  type EmployeeRepository,
  type Guid,
  type IdentityChangeRefused,
  type MaybeAsync,
  type MemoryStore,
  type RecordIdentifier,
  type Shift,
  type ShiftRepository,
  type StorageError,
  unarchiveEmployee,
  type VersionConflict,
} from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  seedRecords,
} from '@workforce-kit/core/testing';
import { ok, type Result } from 'neverthrow';
import { describe, expect, it } from 'vitest';

const restaurant = aRestaurant();
const clock = { now: () => new Date('2026-03-01T12:00:00.000Z') };
const command = { restaurant: restaurant.guid, requestId: 'r0' };
let nextId = 0;
const ids = { newId: () => `event-${++nextId}` };

/** How a repository was read: `kept` (a ChangeRead answered from what it keeps) or `current`. */
type Read = 'kept' | 'current';

/**
 * The memory store's repository, with records kept as they were once read (`kept`, by GUID): a
 * ChangeRead of one of them is answered from it and told so, as a store that keeps records in
 * process answers when another process changed the record since; any other read is answered as
 * the record stands. A write that loses a race keeps the record as it then stands, as ChangeRead
 * asks of such a store. Each read is logged.
 */
function keeping<T extends Employee | Shift>(
  repository: {
    find(restaurantGuid: Guid, id: RecordIdentifier): MaybeAsync<Result<T | null, StorageError>>;
    write(
      change: ConditionalWrite<T>,
    ): MaybeAsync<Result<T, VersionConflict | IdentityChangeRefused | StorageError>>;
  },
  kept: Map<Guid, T>,
  reads: Read[],
) {
  return {
    find: (restaurantGuid: Guid, id: RecordIdentifier) => {
      const changeRead = 'fromCache' in id ? (id as ChangeRead) : undefined;
      const held = id.kind === 'guid' ? kept.get(id.guid) : undefined;
      if (changeRead !== undefined && held !== undefined) {
        changeRead.fromCache = true;
        reads.push('kept');
        return ok(held);
      }
      reads.push('current');
      return repository.find(restaurantGuid, id);
    },
    write: async (change: ConditionalWrite<T>) => {
      const written = await repository.write(change);
      const { restaurantGuid, guid } = change.record;
      if (written.isErr() && written.error.type === 'VersionConflict') {
        const now = await repository.find(restaurantGuid, { kind: 'guid', guid });
        if (now.isOk() && now.value !== null) kept.set(guid, now.value);
      }
      return written;
    },
  };
}

function world(records: { employees?: Employee[]; shifts?: Shift[] }) {
  const memory: MemoryStore = createMemoryStore(
    seedRecords({ restaurants: [restaurant], ...records }),
  );
  const reads: Read[] = [];
  const keptEmployees = new Map<Guid, Employee>();
  const keptShifts = new Map<Guid, Shift>();
  const employees: EmployeeRepository = keeping(memory.employees, keptEmployees, reads);
  const shifts: ShiftRepository = keeping(memory.shifts, keptShifts, reads);
  return { memory, reads, keptEmployees, keptShifts, deps: { employees, shifts, clock, ids } };
}

/** The record as the memory store holds it now. */
async function stored<T>(find: () => unknown): Promise<T> {
  return ((await find()) as { _unsafeUnwrap(): T })._unsafeUnwrap();
}

describe('a decision to write nothing, made from a record the store kept', () => {
  it('an archive that the kept record makes a no-op archives the employee as it stands', async () => {
    const live = anEmployee(restaurant.guid);
    const { memory, reads, keptEmployees, deps } = world({ employees: [live] });
    // Kept as archived: another process archived it, then someone unarchived it.
    keptEmployees.set(live.guid, { ...anArchivedEmployee(restaurant.guid), guid: live.guid });

    const result = await archiveEmployee(deps, {
      restaurant: restaurant.guid,
      employee: { kind: 'guid', guid: live.guid },
      requestId: 'r1',
    });

    expect(result._unsafeUnwrap().record).toMatchObject({ deleted: true, version: 2 });
    expect(result._unsafeUnwrap().events.map((event) => event.type)).toEqual(['EmployeeArchived']);
    expect(reads).toEqual(['kept', 'current']);
    expect(memory.recordedEvents()).toHaveLength(1);
  });

  it('an unarchive that the kept record refuses unarchives the employee as it stands', async () => {
    const archived = anArchivedEmployee(restaurant.guid);
    const { reads, keptEmployees, deps } = world({ employees: [archived] });
    keptEmployees.set(archived.guid, { ...anEmployee(restaurant.guid), guid: archived.guid });

    const result = await unarchiveEmployee(deps, {
      restaurant: restaurant.guid,
      employee: archived.guid,
      requestId: 'r1',
    });

    expect(result._unsafeUnwrap().record).toMatchObject({ deleted: false, version: 2 });
    expect(reads).toEqual(['kept', 'current']);
  });

  it('a shift delete that the kept record makes a no-op deletes the shift as it stands', async () => {
    const shift = aShift(restaurant.guid);
    const { reads, keptShifts, deps } = world({ shifts: [shift] });
    keptShifts.set(shift.guid, { ...shift, deleted: true, deletedDate: shift.modifiedDate });

    const result = await deleteShift(deps, {
      restaurant: restaurant.guid,
      shift: { kind: 'guid', guid: shift.guid },
      requestId: 'r1',
    });

    expect(result._unsafeUnwrap().events.map((event) => event.type)).toEqual(['ShiftDeleted']);
    expect(reads).toEqual(['kept', 'current']);
  });

  it('a refusal that the record as it stands confirms stands, read once more', async () => {
    const live = anEmployee(restaurant.guid);
    const { reads, keptEmployees, deps } = world({ employees: [live] });
    keptEmployees.set(live.guid, live);

    const result = await unarchiveEmployee(deps, {
      restaurant: restaurant.guid,
      employee: live.guid,
      requestId: 'r1',
    });

    expect(result._unsafeUnwrapErr().type).toBe('EmployeeNotArchived');
    expect(reads).toEqual(['kept', 'current']);
  });
});

describe('a change decided from a record the store kept', () => {
  it('stands when its write is at the version stored: one read, one write', async () => {
    const archived = anArchivedEmployee(restaurant.guid);
    const { memory, reads, keptEmployees, deps } = world({ employees: [archived] });
    keptEmployees.set(archived.guid, archived);

    const result = await unarchiveEmployee(deps, {
      restaurant: restaurant.guid,
      employee: archived.guid,
      requestId: 'r1',
    });

    expect(result._unsafeUnwrap().record).toMatchObject({ deleted: false, version: 2 });
    expect(reads).toEqual(['kept']);
    expect(memory.recordedEvents()).toHaveLength(1);
  });

  it('is decided again when its write loses to the change another process made', async () => {
    const live = anEmployee(restaurant.guid);
    const { memory, reads, keptEmployees, deps } = world({ employees: [live] });
    // Another process archived it and unarchived it again (version 3); kept as first archived.
    const elsewhere = { employees: memory.employees, clock, ids };
    const guid = live.guid;
    expect(
      (await archiveEmployee(elsewhere, { ...command, employee: { kind: 'guid', guid } })).isOk(),
    ).toBe(true);
    const archivedThen = await stored<Employee>(() =>
      memory.employees.find(restaurant.guid, { kind: 'guid', guid }),
    );
    keptEmployees.set(guid, archivedThen);
    expect((await unarchiveEmployee(elsewhere, { ...command, employee: guid })).isOk()).toBe(true);

    const result = await unarchiveEmployee(deps, { ...command, employee: guid });

    // The write at version 2 lost; the record kept since is the one that won (live, version 3),
    // which refuses; the refusal is confirmed from the record as it stands.
    expect(result._unsafeUnwrapErr().type).toBe('EmployeeNotArchived');
    expect(reads).toEqual(['kept', 'kept', 'current']);
    const now = await stored<Employee>(() =>
      memory.employees.find(restaurant.guid, { kind: 'guid', guid }),
    );
    expect(now).toMatchObject({ deleted: false, version: 3 });
    expect(memory.recordedEvents()).toHaveLength(2);
  });
});

describe('a store that answers every read as the record stands', () => {
  it('is read once for a refusal: nothing to confirm', async () => {
    const live = anEmployee(restaurant.guid);
    const { reads, deps } = world({ employees: [live] });

    const result = await unarchiveEmployee(deps, {
      restaurant: restaurant.guid,
      employee: live.guid,
      requestId: 'r1',
    });

    expect(result._unsafeUnwrapErr().type).toBe('EmployeeNotArchived');
    expect(reads).toEqual(['current']);
  });
});
