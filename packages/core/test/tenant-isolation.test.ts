import {
  archiveEmployee,
  createMemoryStore,
  deleteShift,
  type Employee,
  type EmployeeRepository,
  type ExternalId,
  type Guid,
  getRestaurant,
  isGuid,
  type MaybeAsync,
  type MemoryStore,
  parseExternalId,
  parseGuid,
  parseRecordId,
  type RecordedEvent,
  type Restaurant,
  type RestaurantRepository,
  type Shift,
  type ShiftRepository,
  toResultAsync,
  type UseCaseDeps,
  unarchiveEmployee,
} from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  guidArb,
  guidInputArb,
  malformedShiftIdArb,
  seedRecords,
} from '@workforce-kit/core/testing';
import fc from 'fast-check';
import { Result, ResultAsync } from 'neverthrow';
import { describe, expect, it } from 'vitest';

// Every record belongs to exactly one restaurant and is invisible in any other restaurant's
// context. These properties issue random operations in random contexts against the records of
// two or three restaurants and check that nothing of restaurant A is ever returned or changed
// through the context of restaurant B.

/** Every restaurant of a world has a shift with this external id. */
const SHARED_EXTERNAL_ID = 'SCHEDULER:shared-1' as ExternalId;
/** The first employee of every restaurant of a world has this external id. */
const SHARED_EMPLOYEE_ID = 'PAYROLL:shared-1' as ExternalId;
/** A small pool, so that restaurants often share external ids by chance too. */
const EXTERNAL_ID_POOL = ['POS:1', 'POS:2', 'SCHEDULER:7'] as ExternalId[];

interface World {
  readonly restaurants: readonly Restaurant[];
  readonly employees: readonly Employee[];
  readonly shifts: readonly Shift[];
  /** A GUID that names no record. */
  readonly unknownGuid: Guid;
}

const worldArb: fc.Arbitrary<World> = fc
  .record({
    restaurants: fc.array(
      fc.record({
        archived: fc.boolean(),
        employees: fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }),
        shifts: fc.array(
          fc.record({
            deleted: fc.boolean(),
            externalId: fc.option(fc.constantFrom(...EXTERNAL_ID_POOL), { nil: undefined }),
          }),
          { maxLength: 3 },
        ),
      }),
      { minLength: 2, maxLength: 3 },
    ),
    // Enough distinct GUIDs for every record (3 restaurants x (1 + 3 + 4) + 1).
    guids: fc.uniqueArray(guidArb, { minLength: 25, maxLength: 25 }),
  })
  .map(({ restaurants, guids }) => {
    let next = 0;
    const take = (): Guid => {
      const guid = guids[next++];
      if (guid === undefined) throw new Error('not enough GUIDs generated');
      return guid;
    };
    const world = {
      restaurants: [] as Restaurant[],
      employees: [] as Employee[],
      shifts: [] as Shift[],
    };
    restaurants.forEach((spec, r) => {
      const restaurant = aRestaurant({
        guid: take(),
        general: { name: `Restaurant ${r}`, archived: spec.archived },
      });
      world.restaurants.push(restaurant);
      spec.employees.forEach((archived, e) => {
        const identity = { guid: take(), ...(e === 0 ? { externalId: SHARED_EMPLOYEE_ID } : {}) };
        world.employees.push(
          archived
            ? anArchivedEmployee(restaurant.guid, identity)
            : anEmployee(restaurant.guid, identity),
        );
      });
      world.shifts.push(aShift(restaurant.guid, { guid: take(), externalId: SHARED_EXTERNAL_ID }));
      const used = new Set<string>();
      for (const { deleted, externalId } of spec.shifts) {
        const unique = externalId !== undefined && !used.has(externalId);
        if (unique) used.add(externalId);
        world.shifts.push(
          aShift(restaurant.guid, {
            guid: take(),
            ...(unique ? { externalId } : {}),
            ...(deleted ? { deleted: true, deletedDate: '2026-02-10T08:30:00.000Z' } : {}),
          }),
        );
      }
    });
    return { ...world, unknownGuid: take() };
  });

function storeOf(world: World): MemoryStore {
  return createMemoryStore(
    seedRecords({
      restaurants: world.restaurants,
      employees: world.employees,
      shifts: world.shifts,
    }),
  );
}

function depsOf(store: Pick<MemoryStore, 'employees' | 'shifts' | 'restaurants'>): UseCaseDeps {
  let nextId = 0;
  return {
    employees: store.employees,
    shifts: store.shifts,
    restaurants: store.restaurants,
    clock: { now: () => new Date('2026-03-01T12:00:00.000Z') },
    ids: { newId: () => `evt-${++nextId}` },
  };
}

function inCase(value: string, upper: readonly boolean[]): string {
  return [...value].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join('');
}

/** Everything of one restaurant a client could observe or a write could change. */
interface RestaurantSnapshot {
  readonly restaurant: Restaurant | null;
  readonly employees: readonly (Employee | null)[];
  readonly shifts: readonly (Shift | null)[];
  readonly events: readonly RecordedEvent[];
}

async function snapshotOf(
  store: MemoryStore,
  world: World,
  restaurantGuid: Guid,
): Promise<RestaurantSnapshot> {
  const restaurant = (await store.restaurants.findByGuid(restaurantGuid))._unsafeUnwrap();
  const employees = await Promise.all(
    world.employees
      .filter((e) => e.restaurantGuid === restaurantGuid)
      .map(async (e) =>
        (
          await store.employees.find(restaurantGuid, { kind: 'guid', guid: e.guid })
        )._unsafeUnwrap(),
      ),
  );
  const shifts = await Promise.all(
    world.shifts
      .filter((s) => s.restaurantGuid === restaurantGuid)
      .map(async (s) =>
        (await store.shifts.find(restaurantGuid, { kind: 'guid', guid: s.guid }))._unsafeUnwrap(),
      ),
  );
  const events = (await store.events.list(restaurantGuid))._unsafeUnwrap();
  return { restaurant, employees, shifts, events };
}

type OperationKind = 'archive' | 'unarchive' | 'deleteShift' | 'getRestaurant';

interface Operation {
  readonly kind: OperationKind;
  /** Index into the contexts: the restaurants, an unknown GUID, a malformed value. */
  readonly context: number;
  readonly contextCase: readonly boolean[];
  /** Index into the targets: every identifier of every restaurant, and strangers. */
  readonly target: number;
  readonly targetCase: readonly boolean[];
  readonly includeArchived: boolean;
}

const caseMaskArb = fc.array(fc.boolean(), { minLength: 36, maxLength: 36 });

const operationArb: fc.Arbitrary<Operation> = fc.record({
  kind: fc.constantFrom<OperationKind>('archive', 'unarchive', 'deleteShift', 'getRestaurant'),
  context: fc.nat(),
  contextCase: caseMaskArb,
  target: fc.nat(),
  targetCase: caseMaskArb,
  includeArchived: fc.boolean(),
});

function contextsOf(world: World): string[] {
  return [...world.restaurants.map((r) => r.guid), world.unknownGuid, 'not-a-restaurant'];
}

/** Identifiers of every record of every restaurant, random GUIDs and values of no valid form. */
function targetsOf(world: World, strangers: readonly string[]): string[] {
  return [
    ...world.employees.map((e) => e.guid),
    ...world.employees.flatMap((e) => (e.externalId === undefined ? [] : [e.externalId])),
    ...world.shifts.map((s) => s.guid),
    ...world.shifts.flatMap((s) => (s.externalId === undefined ? [] : [s.externalId])),
    ...world.restaurants.map((r) => r.guid),
    world.unknownGuid,
    ...strangers,
  ];
}

function pick<T>(items: readonly T[], index: number): T {
  const item = items[index % items.length];
  if (item === undefined) throw new Error('nothing to pick from');
  return item;
}

/** What a use case answered: the records it returned and the error, if any. */
interface Outcome {
  readonly records: readonly (Employee | Shift | Restaurant)[];
  readonly events: readonly RecordedEvent[];
  readonly error?: { readonly type: string; readonly restaurantGuid?: string };
}

/** Parses the context and target as sent, as the HTTP edge does, then runs the use case. */
async function perform(
  deps: UseCaseDeps,
  kind: OperationKind,
  sentContext: string,
  target: string,
  includeArchived: boolean,
): Promise<Outcome> {
  const requestId = `req-${kind}`;
  const context = parseGuid(sentContext, 'restaurant');
  const result =
    kind === 'archive'
      ? await Result.combine([context, parseRecordId(target, 'employeeId')]).asyncAndThen(
          ([restaurant, employee]) =>
            toResultAsync(archiveEmployee(deps, { restaurant, employee, requestId })),
        )
      : kind === 'unarchive'
        ? await Result.combine([context, parseGuid(target, 'employeeId')]).asyncAndThen(
            ([restaurant, employee]) =>
              toResultAsync(unarchiveEmployee(deps, { restaurant, employee, requestId })),
          )
        : kind === 'deleteShift'
          ? await Result.combine([context, parseRecordId(target, 'shiftId')]).asyncAndThen(
              ([restaurant, shift]) =>
                toResultAsync(deleteShift(deps, { restaurant, shift, requestId })),
            )
          : await context.asyncAndThen((restaurant) =>
              toResultAsync(
                getRestaurant(deps, { restaurant, requested: target, includeArchived }),
              ).map((found) => ({ record: found, events: [] })),
            );
  return result.match<Outcome>(
    ({ record, events }) => ({ records: [record], events }),
    (error) => ({ records: [], events: [], error }),
  );
}

/**
 * The identity of the record an operation may touch in a context: the context's own employee or
 * shift named by the target, or its own restaurant. Undefined when the target names nothing of it.
 */
function ownRecord(world: World, kind: OperationKind, context: Guid, target: string) {
  const lower = isGuid(target) ? target.toLowerCase() : undefined;
  /** Named by GUID, or (where the operation takes one) by a well-formed external id. */
  const named = (record: Employee | Shift, byExternalId: boolean) =>
    record.restaurantGuid === context &&
    (lower !== undefined
      ? record.guid === lower
      : byExternalId && parseExternalId(target) !== undefined && record.externalId === target);
  switch (kind) {
    case 'archive':
      return world.employees.find((e) => named(e, true));
    case 'unarchive':
      return world.employees.find((e) => named(e, false));
    case 'deleteShift':
      return world.shifts.find((s) => named(s, true));
    case 'getRestaurant':
      return world.restaurants.find((r) => r.guid === context && r.guid === lower);
    default: {
      const exhaustive: never = kind;
      return exhaustive;
    }
  }
}

/** The restaurant of a returned record (a restaurant is its own). */
const ownerOf = (record: Employee | Shift | Restaurant): string =>
  'restaurantGuid' in record ? record.restaurantGuid : record.guid;

/**
 * Runs the operations one by one and checks isolation after each: a result never shows a record
 * or event of another restaurant, and no record or event of another restaurant changes. With
 * `exact`, the outcome is also what the context's own records dictate (the store is faithful).
 */
async function checkIsolation(
  world: World,
  store: MemoryStore,
  deps: UseCaseDeps,
  operations: readonly Operation[],
  strangers: readonly string[],
  exact: boolean,
): Promise<void> {
  const contexts = contextsOf(world);
  const targets = targetsOf(world, strangers);
  for (const operation of operations) {
    const rawContext = pick(contexts, operation.context);
    const sentContext = inCase(rawContext, operation.contextCase);
    const target = inCase(pick(targets, operation.target), operation.targetCase);
    const context = isGuid(rawContext) ? (rawContext.toLowerCase() as Guid) : undefined;
    const others = world.restaurants.map((r) => r.guid).filter((guid) => guid !== context);
    const before = await Promise.all(others.map((guid) => snapshotOf(store, world, guid)));

    const outcome = await perform(
      deps,
      operation.kind,
      sentContext,
      target,
      operation.includeArchived,
    );

    const after = await Promise.all(others.map((guid) => snapshotOf(store, world, guid)));
    expect(after).toStrictEqual(before);
    for (const record of outcome.records) expect(ownerOf(record)).toBe(context);
    for (const event of outcome.events) expect(event.restaurantGuid).toBe(context);
    if (outcome.error?.restaurantGuid !== undefined) {
      expect(outcome.error.restaurantGuid).toBe(context);
    }
    // Nothing of another restaurant shows up anywhere in the answer, not even in an error.
    const answer = JSON.stringify(outcome);
    for (const other of world.restaurants.filter((r) => r.guid !== context)) {
      expect(answer).not.toContain(other.general.name);
    }

    if (!exact) continue;
    const own =
      context === undefined ? undefined : ownRecord(world, operation.kind, context, target);
    if (context === undefined) {
      expect(outcome.error).toMatchObject({
        type: 'MalformedIdentifier',
        field: 'restaurant',
      });
    } else if (own === undefined) {
      expect(outcome.error?.type).toBe(missError(operation.kind, target));
    } else if ('general' in own) {
      // The context's own restaurant: visible unless archived and not asked for.
      if (own.general.archived && !operation.includeArchived) {
        expect(outcome.error).toMatchObject({ type: 'RestaurantNotFound', reason: 'archived' });
      } else {
        expect(outcome.records).toStrictEqual([own]);
      }
    } else {
      // The context's own employee or shift: found, whatever its state then allows.
      expect(outcome.error?.type).not.toBe(missError(operation.kind, target));
      expect(outcome.error?.type).not.toBe('MalformedIdentifier');
      for (const record of outcome.records) expect(record.guid).toBe(own.guid);
    }
  }
}

/** The error of an operation whose target names nothing of the context restaurant. */
function missError(kind: OperationKind, target: string): string {
  switch (kind) {
    case 'unarchive':
      return isGuid(target) ? 'EmployeeNotFound' : 'MalformedIdentifier';
    case 'archive':
      return isGuid(target) || parseExternalId(target) !== undefined
        ? 'EmployeeNotFound'
        : 'MalformedIdentifier';
    case 'deleteShift':
      return isGuid(target) || parseExternalId(target) !== undefined
        ? 'ShiftNotFound'
        : 'MalformedIdentifier';
    case 'getRestaurant':
      return 'RestaurantNotFound';
    default: {
      const exhaustive: never = kind;
      return exhaustive;
    }
  }
}

const strangersArb = fc.array(
  fc.oneof(guidInputArb, malformedShiftIdArb, fc.constant('SCHEDULER:unknown')),
  { minLength: 1, maxLength: 3 },
);

describe('tenant isolation', () => {
  it('never returns or changes a record of one restaurant through the context of another', async () => {
    await fc.assert(
      fc.asyncProperty(
        worldArb,
        fc.array(operationArb, { minLength: 1, maxLength: 30 }),
        strangersArb,
        async (world, operations, strangers) => {
          const store = storeOf(world);
          await checkIsolation(world, store, depsOf(store), operations, strangers, true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('holds even when the store ignores the restaurant on reads (core checks ownership)', async () => {
    // A faulty store that answers with any restaurant's record of that GUID or external id,
    // preferring another restaurant's. Core must still show and change nothing across tenants.
    await fc.assert(
      fc.asyncProperty(
        worldArb,
        fc.array(operationArb, { minLength: 1, maxLength: 30 }),
        strangersArb,
        async (world, operations, strangers) => {
          const store = storeOf(world);
          await checkIsolation(
            world,
            store,
            depsOf(leakyPorts(store, world)),
            operations,
            strangers,
            false,
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('deletes, by an external id two restaurants share, only the shift of the context', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, fc.nat(), async (world, index) => {
        const store = storeOf(world);
        const deps = depsOf(store);
        const context = pick(world.restaurants, index).guid;
        const shared = world.shifts.filter((s) => s.externalId === SHARED_EXTERNAL_ID);
        expect(shared.length).toBe(world.restaurants.length);
        const own = shared.find((s) => s.restaurantGuid === context);

        const result = await deleteShift(deps, {
          restaurant: context,
          shift: { kind: 'externalId', externalId: SHARED_EXTERNAL_ID },
          requestId: 'req-shared',
        });

        const { record, events } = result._unsafeUnwrap();
        expect(record).toMatchObject({ guid: own?.guid, restaurantGuid: context, deleted: true });
        expect(events).toHaveLength(1);
        for (const other of shared.filter((s) => s.restaurantGuid !== context)) {
          const stored = await store.shifts.find(other.restaurantGuid, {
            kind: 'externalId',
            externalId: SHARED_EXTERNAL_ID,
          });
          expect(stored._unsafeUnwrap()).toStrictEqual(other);
        }
        expect(store.recordedEvents()).toStrictEqual(events);
      }),
      { numRuns: 100 },
    );
  });
});

describe('getRestaurant in a restaurant context', () => {
  const requestedArb = (world: World, context: Restaurant) =>
    fc.oneof(
      // The context restaurant, in any letter case.
      caseMaskArb.map((mask) => inCase(context.guid, mask)),
      // Another restaurant of the store, in any letter case.
      fc
        .tuple(fc.constantFrom(...world.restaurants.map((r) => r.guid)), caseMaskArb)
        .map(([guid, mask]) => inCase(guid, mask)),
      // Any GUID, any string, near-misses of the context's GUID.
      guidInputArb,
      fc.string({ maxLength: 40 }),
      malformedShiftIdArb,
      fc.constantFrom(
        `${context.guid} `,
        ` ${context.guid}`,
        `{${context.guid}}`,
        context.guid.replaceAll('-', ''),
        context.guid.slice(0, -1),
        `${context.guid}0`,
        `urn:uuid:${context.guid}`,
      ),
    );

  it('returns only the context restaurant, and an archived one only with includeArchived', async () => {
    await fc.assert(
      fc.asyncProperty(
        worldArb
          .chain((world) => fc.tuple(fc.constant(world), fc.constantFrom(...world.restaurants)))
          .chain(([world, context]) =>
            fc.tuple(
              fc.constant(world),
              fc.constant(context),
              requestedArb(world, context),
              fc.boolean(),
              caseMaskArb,
            ),
          ),
        async ([world, context, requested, includeArchived, contextCase]) => {
          const store = storeOf(world);
          // The context as a client may send it (any letter case), parsed as the edge does.
          const sent = inCase(context.guid, contextCase);
          const result = await parseGuid(sent, 'restaurant').asyncAndThen((restaurant) =>
            toResultAsync(getRestaurant(depsOf(store), { restaurant, requested, includeArchived })),
          );

          const isContext = isGuid(requested) && requested.toLowerCase() === context.guid;
          if (isContext && (!context.general.archived || includeArchived)) {
            expect(result._unsafeUnwrap()).toStrictEqual(context);
          } else {
            expect(result._unsafeUnwrapErr()).toStrictEqual({
              type: 'RestaurantNotFound',
              requested,
              reason: !isGuid(requested)
                ? 'malformed-guid'
                : isContext
                  ? 'archived'
                  : 'not-the-context',
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('finds no restaurant in the context of a restaurant that does not exist', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, fc.boolean(), async (world, includeArchived) => {
        const store = storeOf(world);
        for (const requested of [world.unknownGuid, ...world.restaurants.map((r) => r.guid)]) {
          const result = await getRestaurant(depsOf(store), {
            restaurant: world.unknownGuid,
            requested,
            includeArchived,
          });
          expect(result._unsafeUnwrapErr()).toMatchObject({
            type: 'RestaurantNotFound',
            reason: requested === world.unknownGuid ? 'missing' : 'not-the-context',
          });
        }
      }),
      { numRuns: 50 },
    );
  });

  it('returns no other restaurant even when the store answers with the wrong one', async () => {
    await fc.assert(
      fc.asyncProperty(worldArb, fc.nat(), fc.boolean(), async (world, index, includeArchived) => {
        const context = pick(world.restaurants, index);
        const store = storeOf(world);
        const result = await getRestaurant(depsOf(leakyPorts(store, world)), {
          restaurant: context.guid,
          requested: context.guid,
          includeArchived,
        });
        expect(result._unsafeUnwrapErr()).toMatchObject({
          type: 'RestaurantNotFound',
          reason: 'not-the-context',
        });
      }),
      { numRuns: 50 },
    );
  });
});

/**
 * Repositories of a faulty store that ignore the restaurant on reads: they answer with the record
 * of that GUID (or external id) of another restaurant when there is one. Writes are the store's.
 */
function leakyPorts(
  store: MemoryStore,
  world: World,
): Pick<MemoryStore, 'employees' | 'shifts' | 'restaurants'> {
  const othersFirst = (restaurantGuid: Guid): Guid[] => [
    ...world.restaurants.map((r) => r.guid).filter((guid) => guid !== restaurantGuid),
    restaurantGuid,
  ];
  const firstFound = <T, E>(results: MaybeAsync<Result<T | null, E>>[]): ResultAsync<T | null, E> =>
    ResultAsync.combine(results.map(toResultAsync)).map(
      (found) => found.find((x) => x !== null) ?? null,
    );

  const employees: EmployeeRepository = {
    find: (restaurantGuid, employeeId) =>
      firstFound(othersFirst(restaurantGuid).map((guid) => store.employees.find(guid, employeeId))),
    write: (change) => store.employees.write(change),
  };
  const shifts: ShiftRepository = {
    find: (restaurantGuid, shiftId) =>
      firstFound(othersFirst(restaurantGuid).map((guid) => store.shifts.find(guid, shiftId))),
    write: (change) => store.shifts.write(change),
  };
  const restaurants: RestaurantRepository = {
    findByGuid: (restaurantGuid) =>
      firstFound(othersFirst(restaurantGuid).map((guid) => store.restaurants.findByGuid(guid))),
  };
  return { employees, shifts, restaurants };
}
