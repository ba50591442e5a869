import {
  archiveEmployee,
  createMemoryStore,
  deleteShift,
  type Employee,
  type ExternalId,
  type Guid,
  type MemoryStore,
  parseGuid,
  parseRecordId,
  type Shift,
  type UseCaseDeps,
  unarchiveEmployee,
} from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  externalIdArb,
  guidArb,
  seedRecords,
} from '@workforce-kit/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// Model-based tests of the employee and shift state machines, driven through the use cases over
// the memory store. The model knows only which employees are archived, which shifts are deleted
// and how many events must have been stored; every command checks the use case's answer and the
// stored record against it, and the whole store against the model afterwards.

interface EmployeeModel {
  archived: boolean;
  /** Whether the stored employee still has a swipe card: only until its first transition. */
  hasSwipeCard: boolean;
}

interface Model {
  readonly employees: Map<Guid, EmployeeModel>;
  readonly shifts: Map<Guid, { deleted: boolean }>;
  events: number;
}

interface World {
  readonly restaurantGuid: Guid;
  readonly employees: ReadonlyMap<Guid, Employee>;
  readonly shifts: ReadonlyMap<Guid, Shift>;
}

interface Real {
  readonly world: World;
  readonly store: MemoryStore;
  readonly clock: { time: number; now(): Date };
  readonly deps: UseCaseDeps;
}

/** A GUID as a client may send it: each letter in the case the mask says. */
function inCase(guid: string, upper: readonly boolean[]): string {
  return [...guid].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join('');
}

const caseMaskArb = fc.array(fc.boolean(), { minLength: 36, maxLength: 36 });
const maskLabel = (mask: readonly boolean[]) =>
  mask.every((u) => !u) ? 'lower' : mask.every((u) => u) ? 'upper' : 'mixed';

/** The i-th key of a map, wrapping around (commands name records by position). */
function keyAt<K>(map: ReadonlyMap<K, unknown>, index: number): K {
  const keys = [...map.keys()];
  const key = keys[index % keys.length];
  if (key === undefined) throw new Error('the seed has no record of this kind');
  return key;
}

async function storedEmployee(real: Real, guid: Guid): Promise<Employee> {
  const found = (
    await real.store.employees.find(real.world.restaurantGuid, { kind: 'guid', guid: guid })
  )._unsafeUnwrap();
  if (found === null) throw new Error(`employee ${guid} vanished from the store`);
  return found;
}

async function storedShift(real: Real, guid: Guid): Promise<Shift> {
  const found = (
    await real.store.shifts.find(real.world.restaurantGuid, { kind: 'guid', guid })
  )._unsafeUnwrap();
  if (found === null) throw new Error(`shift ${guid} vanished from the store`);
  return found;
}

/** The whole store agrees with the model: states, swipe cards, `deletedDate` iff deleted, events. */
async function expectStoreMatchesModel(model: Model, real: Real): Promise<void> {
  for (const [guid, expected] of model.employees) {
    const employee = await storedEmployee(real, guid);
    expect(employee.deleted).toBe(expected.archived);
    expect('deletedDate' in employee).toBe(expected.archived);
    expect('swipeCard' in employee).toBe(expected.hasSwipeCard);
  }
  for (const [guid, expected] of model.shifts) {
    const shift = await storedShift(real, guid);
    expect(shift.deleted).toBe(expected.deleted);
    expect('deletedDate' in shift).toBe(expected.deleted);
  }
  const events = real.store.recordedEvents();
  expect(events).toHaveLength(model.events);
  expect(new Set(events.map((event) => event.eventId)).size).toBe(events.length);
}

class AdvanceClock implements fc.AsyncCommand<Model, Real> {
  constructor(readonly ms: number) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    real.clock.time += this.ms;
    await expectStoreMatchesModel(model, real);
  }
  toString(): string {
    return `AdvanceClock(${this.ms}ms)`;
  }
}

type EmployeeAction = 'archive' | 'unarchive';

class ChangeEmployee implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly action: EmployeeAction,
    readonly index: number,
    readonly contextCase: readonly boolean[],
    readonly idCase: readonly boolean[],
    /** Archive names the employee by its external id when it has one; unarchive takes GUIDs only. */
    readonly byExternalId: boolean,
    readonly requestId: string,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: Model, real: Real): Promise<void> {
    const guid = keyAt(model.employees, this.index);
    const state = model.employees.get(guid);
    const seeded = real.world.employees.get(guid);
    if (state === undefined || seeded === undefined) throw new Error('unknown employee');
    const before = await storedEmployee(real, guid);
    const now = real.clock.now().toISOString();
    const archiving = this.action === 'archive';
    // The identifiers as a client may send them (any letter case), parsed as the edge does.
    const restaurant = parseGuid(
      inCase(real.world.restaurantGuid, this.contextCase),
      'restaurant',
    )._unsafeUnwrap();
    const sent =
      archiving && this.byExternalId && seeded.externalId !== undefined
        ? seeded.externalId
        : inCase(guid, this.idCase);
    const { requestId } = this;
    const result = archiving
      ? await archiveEmployee(real.deps, {
          restaurant,
          employee: parseRecordId(sent, 'employeeId')._unsafeUnwrap(),
          requestId,
        })
      : await unarchiveEmployee(real.deps, {
          restaurant,
          employee: parseGuid(sent, 'employeeId')._unsafeUnwrap(),
          requestId,
        });
    const after = await storedEmployee(real, guid);

    if (state.archived && archiving) {
      // Archiving an archived employee changes nothing, modifiedDate included, and yields no event.
      expect(result._unsafeUnwrap()).toStrictEqual({ record: before, events: [] });
      expect(after).toStrictEqual(before);
    } else if (!state.archived && !archiving) {
      // Unarchiving an employee that is not archived is refused, and nothing changes.
      expect(result._unsafeUnwrapErr()).toStrictEqual({
        type: 'EmployeeNotArchived',
        restaurantGuid: real.world.restaurantGuid,
        employeeGuid: guid,
      });
      expect(after).toStrictEqual(before);
    } else {
      const { record, events } = result._unsafeUnwrap();
      const { deletedDate: _removed, swipeCard: _dropped, ...kept } = before;
      const expected: Employee = archiving
        ? {
            ...kept,
            deleted: true,
            deletedDate: now,
            modifiedDate: now,
            version: before.version + 1,
          }
        : { ...kept, deleted: false, modifiedDate: now, version: before.version + 1 };
      expect(record).toStrictEqual(expected);
      expect(after).toStrictEqual(record);
      // The rules one by one, independent of how `expected` was built above.
      expect(record.deleted).toBe(archiving);
      expect(record.deletedDate).toBe(archiving ? now : undefined);
      expect('deletedDate' in record).toBe(archiving);
      expect(record.modifiedDate).toBe(now);
      expect(record.createdDate).toBe(seeded.createdDate);
      expect(record.version).toBe(before.version + 1);
      expect('swipeCard' in record).toBe(false);
      expect(record.jobReferences).toStrictEqual(seeded.jobReferences);
      expect(record.wageOverrides).toStrictEqual(seeded.wageOverrides);
      expect(events).toStrictEqual([
        {
          type: archiving ? 'EmployeeArchived' : 'EmployeeUnarchived',
          restaurantGuid: real.world.restaurantGuid,
          employeeGuid: guid,
          occurredAt: now,
          eventId: expect.any(String),
          requestId: this.requestId,
        },
      ]);
      expect(real.store.recordedEvents().at(-1)).toStrictEqual(events[0]);
      state.archived = archiving;
      state.hasSwipeCard = false;
      model.events += 1;
    }
    await expectStoreMatchesModel(model, real);
  }

  toString(): string {
    const by =
      this.action === 'archive' && this.byExternalId
        ? 'external id if any'
        : `GUID ${maskLabel(this.idCase)}`;
    return `${this.action === 'archive' ? 'Archive' : 'Unarchive'}(employee #${this.index}, context ${maskLabel(this.contextCase)}, by ${by}, ${this.requestId})`;
  }
}

class DeleteShift implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly index: number,
    readonly byExternalId: boolean,
    readonly idCase: readonly boolean[],
    readonly requestId: string,
  ) {}

  check(): boolean {
    return true;
  }

  async run(model: Model, real: Real): Promise<void> {
    const guid = keyAt(model.shifts, this.index);
    const state = model.shifts.get(guid);
    const seeded = real.world.shifts.get(guid);
    if (state === undefined || seeded === undefined) throw new Error('unknown shift');
    const before = await storedShift(real, guid);
    const now = real.clock.now().toISOString();
    const sent =
      this.byExternalId && seeded.externalId !== undefined
        ? seeded.externalId
        : inCase(guid, this.idCase);

    const result = await deleteShift(real.deps, {
      restaurant: real.world.restaurantGuid,
      shift: parseRecordId(sent, 'shiftId')._unsafeUnwrap(),
      requestId: this.requestId,
    });
    const { record, events } = result._unsafeUnwrap();
    const after = await storedShift(real, guid);

    if (state.deleted) {
      // Deleting a deleted shift changes nothing, modifiedDate included, and yields no event.
      expect(record).toStrictEqual(before);
      expect(events).toStrictEqual([]);
      expect(after).toStrictEqual(before);
    } else {
      expect(record).toStrictEqual({
        ...before,
        deleted: true,
        deletedDate: now,
        modifiedDate: now,
        version: before.version + 1,
      });
      expect(after).toStrictEqual(record);
      expect(events).toStrictEqual([
        {
          type: 'ShiftDeleted',
          restaurantGuid: real.world.restaurantGuid,
          shiftGuid: guid,
          occurredAt: now,
          eventId: expect.any(String),
          requestId: this.requestId,
        },
      ]);
      expect(real.store.recordedEvents().at(-1)).toStrictEqual(events[0]);
      state.deleted = true;
      model.events += 1;
    }
    await expectStoreMatchesModel(model, real);
  }

  toString(): string {
    const by = this.byExternalId ? 'external id if any' : `GUID ${maskLabel(this.idCase)}`;
    return `DeleteShift(shift #${this.index}, by ${by}, ${this.requestId})`;
  }
}

const requestIdArb = fc.nat({ max: 9_999 }).map((n) => `req-${n}`);
const indexArb = fc.nat({ max: 7 });

const commandArbs = [
  fc.integer({ min: 1, max: 3 * 86_400_000 }).map((ms) => new AdvanceClock(ms)),
  fc
    .tuple(
      fc.constantFrom<EmployeeAction>('archive', 'unarchive'),
      indexArb,
      caseMaskArb,
      caseMaskArb,
      fc.boolean(),
      requestIdArb,
    )
    .map((args) => new ChangeEmployee(...args)),
  fc
    .tuple(indexArb, fc.boolean(), caseMaskArb, requestIdArb)
    .map((args) => new DeleteShift(...args)),
];

/** A restaurant with employees (archived or not, with a swipe card or not) and shifts. */
const worldArb: fc.Arbitrary<World> = fc
  .record({
    restaurantGuid: guidArb,
    employees: fc.uniqueArray(
      fc.record({
        guid: guidArb,
        archived: fc.boolean(),
        swipeCard: fc.boolean(),
        externalId: fc.boolean(),
      }),
      { minLength: 1, maxLength: 5, selector: (e) => e.guid },
    ),
    shifts: fc.uniqueArray(
      fc.record({
        guid: guidArb,
        deleted: fc.boolean(),
        externalId: fc.option(
          fc.oneof(
            externalIdArb,
            fc
              .constantFrom('SCHEDULER:1', 'POS:shift-7', 'Scheduler:1')
              .map((id) => id as ExternalId),
          ),
          { nil: undefined },
        ),
      }),
      { minLength: 1, maxLength: 5, selector: (s) => s.guid },
    ),
  })
  .map(({ restaurantGuid, employees, shifts }) => {
    const usedExternalIds = new Set<string>();
    return {
      restaurantGuid,
      employees: new Map(
        employees.map(({ guid, archived, swipeCard, externalId }, i) => {
          const card = swipeCard ? { swipeCard: `card-${guid.slice(0, 4)}` } : {};
          const identity = {
            guid,
            ...(externalId ? { externalId: `PAYROLL:${i}` as ExternalId } : {}),
          };
          const employee = archived
            ? anArchivedEmployee(restaurantGuid, { ...identity, ...card })
            : anEmployee(restaurantGuid, identity);
          if (!archived && !swipeCard) {
            const { swipeCard: _none, ...withoutCard } = employee;
            return [guid, withoutCard];
          }
          return [guid, employee];
        }),
      ),
      shifts: new Map(
        shifts.map(({ guid, deleted, externalId }) => {
          // External ids are unique within a restaurant: a repeated one is left out.
          const unique = externalId !== undefined && !usedExternalIds.has(externalId);
          if (unique) usedExternalIds.add(externalId);
          const shift = aShift(restaurantGuid, {
            guid,
            ...(unique ? { externalId } : {}),
            ...(deleted
              ? {
                  deleted: true,
                  deletedDate: '2026-02-10T08:30:00.000Z',
                  modifiedDate: '2026-02-10T08:30:00.000Z',
                }
              : {}),
          });
          return [guid, shift];
        }),
      ),
    };
  });

function setup(world: World): () => { model: Model; real: Real } {
  return () => {
    const store = createMemoryStore(
      seedRecords({
        restaurants: [aRestaurant({ guid: world.restaurantGuid })],
        employees: [...world.employees.values()],
        shifts: [...world.shifts.values()],
      }),
    );
    const clock = {
      time: Date.parse('2026-03-01T12:00:00.000Z'),
      now(): Date {
        return new Date(this.time);
      },
    };
    let nextId = 0;
    const deps: UseCaseDeps = {
      employees: store.employees,
      shifts: store.shifts,
      restaurants: store.restaurants,
      clock,
      ids: { newId: () => `evt-${++nextId}` },
    };
    const model: Model = {
      employees: new Map(
        [...world.employees].map(([guid, e]) => [
          guid,
          { archived: e.deleted, hasSwipeCard: e.swipeCard !== undefined },
        ]),
      ),
      shifts: new Map([...world.shifts].map(([guid, s]) => [guid, { deleted: s.deleted }])),
      events: 0,
    };
    return { model, real: { world, store, clock, deps } };
  };
}

describe('employee and shift state machines through the use cases (model-based)', () => {
  it('agree with the model for any sequence of archives, unarchives and deletes', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, fc.commands(commandArbs, { maxCommands: 40 }), (world, cmds) =>
        fc.asyncModelRun(setup(world), cmds),
      ),
      { numRuns: 200 },
    );
  });

  it('start from a seed with archived and unarchived employees and deleted and live shifts', async () => {
    // The model test is only as good as its seeds: every state must be reachable from them.
    const seen = { archived: false, unarchived: false, deleted: false, live: false, byId: false };
    fc.assert(
      fc.property(worldArb, (world) => {
        for (const employee of world.employees.values()) {
          if (employee.deleted) seen.archived = true;
          else seen.unarchived = true;
        }
        for (const shift of world.shifts.values()) {
          if (shift.deleted) seen.deleted = true;
          else seen.live = true;
          if (shift.externalId !== undefined) seen.byId = true;
        }
      }),
      { numRuns: 100 },
    );
    expect(seen).toStrictEqual({
      archived: true,
      unarchived: true,
      deleted: true,
      live: true,
      byId: true,
    });
  });
});
