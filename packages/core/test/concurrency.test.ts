import {
  archiveEmployee,
  type Committed,
  createMemoryStore,
  type DomainError,
  deleteShift,
  type Employee,
  type ExternalId,
  type Guid,
  type MaybeAsync,
  type MemoryStore,
  parseGuid,
  parseRecordId,
  type RecordedEvent,
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
  seedRecords,
} from '@workforce-kit/core/testing';
import fc from 'fast-check';
import { type Result, ResultAsync } from 'neverthrow';
import { describe, expect, it } from 'vitest';

// Races between use cases over one record. Every repository call is split in two scheduled steps:
// the call reaches the store only when the scheduler releases it, and its answer reaches the
// caller only when the scheduler releases that too. So the scheduler picks the order in which
// reads and compare-and-set writes take effect and the order in which callers learn of them.

const restaurant = aRestaurant();

/** A clock that moves 1 ms on every reading, so that each decision has its own time. */
function tickingClock(): UseCaseDeps['clock'] {
  let time = Date.parse('2026-03-01T12:00:00.000Z');
  return { now: () => new Date(time++) };
}

function counterIds(): UseCaseDeps['ids'] {
  let next = 0;
  return { newId: () => `evt-${++next}` };
}

/**
 * The store's repositories with every call scheduled: first the call, then its answer.
 * `who` prefixes the labels in the scheduler's report.
 */
function scheduledDeps(
  store: MemoryStore,
  s: fc.Scheduler,
  clock: UseCaseDeps['clock'],
  ids: UseCaseDeps['ids'],
  who = '',
): UseCaseDeps {
  const via = <T, E>(label: string, call: () => MaybeAsync<Result<T, E>>): ResultAsync<T, E> =>
    new ResultAsync(
      s
        .schedule(Promise.resolve(), `${who}${label} call`)
        .then(() => s.schedule(Promise.resolve(call()), `${who}${label} answer`)),
    );
  return {
    employees: {
      find: (restaurantGuid, employeeId) =>
        via('employees.find', () => store.employees.find(restaurantGuid, employeeId)),
      write: (change) => via('employees.write', () => store.employees.write(change)),
    },
    shifts: {
      find: (restaurantGuid, shiftId) =>
        via('shifts.find', () => store.shifts.find(restaurantGuid, shiftId)),
      write: (change) => via('shifts.write', () => store.shifts.write(change)),
    },
    restaurants: {
      findByGuid: (guid) => via('restaurants.findByGuid', () => store.restaurants.findByGuid(guid)),
    },
    clock,
    ids,
  };
}

/**
 * Lets the scheduler release tasks in its order until every caller has its answer, then checks
 * that no scheduled task is left pending. (`waitFor` keeps releasing tasks that are scheduled
 * after earlier ones resolve; `waitAll` may stop between a read's answer and the write it causes.)
 */
async function settle<T, E>(
  s: fc.Scheduler,
  calls: readonly MaybeAsync<Result<T, E>>[],
): Promise<Result<T, E>[]> {
  const results = await s.waitFor(Promise.all(calls.map(toResultAsync)));
  expect(s.count()).toBe(0);
  return results;
}

function inCase(guid: string, upper: readonly boolean[]): string {
  return [...guid].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join('');
}

/** An identifier as a client sent it (any letter case), parsed as the edge parses it. */
function parsed<T>(result: Result<T, unknown>): T {
  return result._unsafeUnwrap();
}

const caseMaskArb = fc.array(fc.boolean(), { minLength: 36, maxLength: 36 });
const callersArb = <T>(item: fc.Arbitrary<T>) => fc.array(item, { minLength: 2, maxLength: 8 });

/**
 * Checks that exactly one caller won and every other got `loserError`; returns the winner, with
 * the index of its caller.
 */
function theOneWinner<T>(
  results: readonly Result<Committed<T>, DomainError>[],
  loserError: DomainError,
): Committed<T> & { readonly i: number } {
  const winners = results.flatMap((r, i) => (r.isOk() ? [{ i, ...r.value }] : []));
  expect(winners).toHaveLength(1);
  const losers = results.filter((r) => r.isErr()).map((r) => r._unsafeUnwrapErr());
  expect(losers).toStrictEqual(Array(results.length - 1).fill(loserError));
  const [winner] = winners;
  if (winner === undefined) throw new Error('no winner');
  return winner;
}

async function storedEmployee(store: MemoryStore, guid: Guid): Promise<Employee | null> {
  return (await store.employees.find(restaurant.guid, { kind: 'guid', guid }))._unsafeUnwrap();
}

describe('concurrent unarchives and archives of one employee', () => {
  it('let exactly one of N unarchives succeed; the others get EmployeeNotArchived', async () => {
    // Runs in which a caller read before the winner's write and had to read again: the races.
    let raced = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        guidArb,
        callersArb(caseMaskArb),
        async (s, guid, callers) => {
          const employee = anArchivedEmployee(restaurant.guid, { guid });
          const store = createMemoryStore(
            seedRecords({ restaurants: [restaurant], employees: [employee] }),
          );
          const deps = scheduledDeps(store, s, tickingClock(), counterIds());

          const results = await settle(
            s,
            callers.map((mask, i) =>
              unarchiveEmployee(deps, {
                restaurant: restaurant.guid,
                employee: parsed(parseGuid(inCase(guid, mask), 'employeeId')),
                requestId: `req-${i}`,
              }),
            ),
          );

          const winner = theOneWinner(results, {
            type: 'EmployeeNotArchived',
            restaurantGuid: restaurant.guid,
            employeeGuid: guid,
          });
          const stored = await storedEmployee(store, guid);
          expect(stored).toStrictEqual(winner.record);
          expect(stored).toMatchObject({ deleted: false, version: 2 });
          expect(stored && 'deletedDate' in stored).toBe(false);
          expect(stored?.jobReferences).toStrictEqual(employee.jobReferences);
          expect(store.recordedEvents()).toStrictEqual(winner.events);
          expect(store.recordedEvents()).toMatchObject([
            { type: 'EmployeeUnarchived', employeeGuid: guid, requestId: `req-${winner.i}` },
          ]);
          const reads = labels(s).filter((label) => label === 'employees.find call');
          if (reads.length > callers.length) raced += 1;
        },
      ),
      { numRuns: 150 },
    );
    expect(raced).toBeGreaterThan(0);
  });

  it('let all of N archives, by GUID or external id, succeed; one changes it, with one event', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        guidArb,
        callersArb(fc.option(caseMaskArb, { nil: undefined })),
        async (s, guid, callers) => {
          const externalId = 'PAYROLL:race' as ExternalId;
          const employee = anEmployee(restaurant.guid, { guid, externalId });
          const store = createMemoryStore(
            seedRecords({ restaurants: [restaurant], employees: [employee] }),
          );
          const deps = scheduledDeps(store, s, tickingClock(), counterIds());

          const results = await settle(
            s,
            callers.map((mask, i) =>
              archiveEmployee(deps, {
                restaurant: restaurant.guid,
                // A case mask names the employee by its GUID, none by its external id.
                employee: parsed(
                  parseRecordId(mask === undefined ? externalId : inCase(guid, mask), 'employeeId'),
                ),
                requestId: `req-${i}`,
              }),
            ),
          );

          const stored = await storedEmployee(store, guid);
          expect(stored).toMatchObject({ deleted: true, version: 2 });
          expect(stored?.deletedDate).toBe(stored?.modifiedDate);
          expect(stored && 'swipeCard' in stored).toBe(false);
          for (const result of results) expect(result._unsafeUnwrap().record).toStrictEqual(stored);
          const changed = results.flatMap((r, i) => (r._unsafeUnwrap().events.length ? [i] : []));
          expect(changed).toHaveLength(1);
          expect(store.recordedEvents()).toMatchObject([
            { type: 'EmployeeArchived', employeeGuid: guid, requestId: `req-${changed[0]}` },
          ]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('record, in a race of archives and unarchives, events that replay to the final state', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        guidArb,
        fc.boolean(),
        fc.array(fc.constantFrom('archive', 'unarchive'), { minLength: 2, maxLength: 8 }),
        async (s, guid, startArchived, actions) => {
          const employee = startArchived
            ? anArchivedEmployee(restaurant.guid, { guid })
            : anEmployee(restaurant.guid, { guid });
          const store = createMemoryStore(
            seedRecords({ restaurants: [restaurant], employees: [employee] }),
          );
          const deps = scheduledDeps(store, s, tickingClock(), counterIds());

          const results = await settle(
            s,
            actions.map((action, i): MaybeAsync<Result<Committed<Employee>, DomainError>> => {
              const command = { restaurant: restaurant.guid, requestId: `req-${i}` };
              return action === 'archive'
                ? archiveEmployee(deps, { ...command, employee: { kind: 'guid', guid } })
                : unarchiveEmployee(deps, { ...command, employee: guid });
            }),
          );

          // Each event is a legal step from the state the previous one left.
          const events = store.recordedEvents();
          let archived = startArchived;
          for (const event of events) {
            expect(event.type).toBe(archived ? 'EmployeeUnarchived' : 'EmployeeArchived');
            archived = event.type === 'EmployeeArchived';
          }
          const stored = await storedEmployee(store, guid);
          expect(stored?.deleted).toBe(archived);
          expect(stored?.version).toBe(1 + events.length);
          expect(stored?.modifiedDate).toBe(events.at(-1)?.occurredAt ?? employee.modifiedDate);

          // Every success stored its event, if any (an archive of an archived employee changes
          // nothing); archives always succeed, and an unarchive fails only as not archived.
          const okEvents = results.flatMap((r) => (r.isOk() ? r.value.events : []));
          expect([...okEvents].sort(byEventId)).toStrictEqual([...events].sort(byEventId));
          results.forEach((result, i) => {
            if (result.isOk()) {
              expect(result.value.events.every((e) => e.requestId === `req-${i}`)).toBe(true);
              if (actions[i] === 'unarchive') expect(result.value.events).toHaveLength(1);
            } else {
              expect(actions[i]).toBe('unarchive');
              expect(result.error.type).toBe('EmployeeNotArchived');
            }
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});

const byEventId = (a: RecordedEvent, b: RecordedEvent) => a.eventId.localeCompare(b.eventId);

describe('concurrent deletes of one shift', () => {
  it('all succeed, with one change, one event and the same deleted record for every caller', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        guidArb,
        callersArb(fc.option(caseMaskArb, { nil: undefined, freq: 1 })),
        async (s, guid, callers) => {
          const externalId = 'SCHEDULER:race-1' as ExternalId;
          const shift = aShift(restaurant.guid, { guid, externalId });
          const store = createMemoryStore(
            seedRecords({ restaurants: [restaurant], shifts: [shift] }),
          );
          const deps = scheduledDeps(store, s, tickingClock(), counterIds());

          const results = await settle(
            s,
            // A caller names the shift by GUID in some letter case, or (no mask) by external id.
            callers.map((mask, i) =>
              deleteShift(deps, {
                restaurant: restaurant.guid,
                shift: parsed(
                  parseRecordId(mask === undefined ? externalId : inCase(guid, mask), 'shiftId'),
                ),
                requestId: `req-${i}`,
              }),
            ),
          );

          const committed = results.map((r) => r._unsafeUnwrap());
          const stored = (
            await store.shifts.find(restaurant.guid, { kind: 'guid', guid })
          )._unsafeUnwrap();
          expect(stored).toMatchObject({ deleted: true, version: 2 });
          expect(stored?.deletedDate).toBe(stored?.modifiedDate);
          for (const { record } of committed) {
            expect(record.deleted).toBe(true);
            expect(record.deletedDate).toBe(stored?.deletedDate);
            expect(record).toStrictEqual(stored);
          }
          const events = committed.flatMap((c) => c.events);
          expect(events).toHaveLength(1);
          expect(store.recordedEvents()).toStrictEqual(events);
          expect(events[0]).toMatchObject({ type: 'ShiftDeleted', shiftGuid: guid });
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('a write that loses the race', () => {
  // The scheduled story: X reads, then Y reads, writes and answers, and only then X writes.
  // Task ids are given in the order the tasks are scheduled:
  //  1 X read call, 2 Y read call, 3 X read answer, 4 X write call, 5 Y read answer,
  //  6 Y write call, 7 Y write answer, 8 X write answer.
  const xLosesToY = (then: readonly number[] = []) =>
    fc.schedulerFor([1, 3, 2, 5, 6, 7, 4, 8, ...then]);

  it('is WriteContention with maxAttempts 1, and changes nothing of that caller', async () => {
    const s = xLosesToY();
    const employee = anArchivedEmployee(restaurant.guid);
    const store = createMemoryStore(
      seedRecords({ restaurants: [restaurant], employees: [employee] }),
    );
    const clock = tickingClock();
    const ids = counterIds();
    const x = { ...scheduledDeps(store, s, clock, ids, 'X '), maxAttempts: 1 };
    const y = scheduledDeps(store, s, clock, ids, 'Y ');
    const command = { restaurant: restaurant.guid, employee: employee.guid };

    const [fromX, fromY] = await settle(s, [
      unarchiveEmployee(x, { ...command, requestId: 'req-x' }),
      unarchiveEmployee(y, { ...command, requestId: 'req-y' }),
    ]);

    expect(labels(s)).toStrictEqual([
      'X employees.find call',
      'X employees.find answer',
      'Y employees.find call',
      'Y employees.find answer',
      'Y employees.write call',
      'Y employees.write answer',
      'X employees.write call',
      'X employees.write answer',
    ]);
    expect(fromX?._unsafeUnwrapErr()).toStrictEqual({
      type: 'WriteContention',
      subject: employee.guid,
      attempts: 1,
    });
    const won = fromY?._unsafeUnwrap();
    expect(await storedEmployee(store, employee.guid)).toStrictEqual(won?.record);
    expect(won?.record.version).toBe(2);
    expect(store.recordedEvents()).toStrictEqual(won?.events);
    expect(store.recordedEvents()).toMatchObject([{ requestId: 'req-y' }]);
  });

  it('is decided again on the winning state when retries are left (the default)', async () => {
    // After the same eight tasks, X reads again (9 call, 10 answer) and decides on Y's state.
    const s = xLosesToY([9, 10]);
    const employee = anArchivedEmployee(restaurant.guid);
    const store = createMemoryStore(
      seedRecords({ restaurants: [restaurant], employees: [employee] }),
    );
    const clock = tickingClock();
    const ids = counterIds();
    const x = scheduledDeps(store, s, clock, ids, 'X ');
    const y = scheduledDeps(store, s, clock, ids, 'Y ');
    const command = { restaurant: restaurant.guid, employee: employee.guid };

    const [fromX, fromY] = await settle(s, [
      unarchiveEmployee(x, { ...command, requestId: 'req-x' }),
      unarchiveEmployee(y, { ...command, requestId: 'req-y' }),
    ]);

    expect(labels(s).slice(6)).toStrictEqual([
      'X employees.write call',
      'X employees.write answer',
      'X employees.find call',
      'X employees.find answer',
    ]);
    expect(fromX?._unsafeUnwrapErr()).toStrictEqual({
      type: 'EmployeeNotArchived',
      restaurantGuid: restaurant.guid,
      employeeGuid: employee.guid,
    });
    expect(fromY?.isOk()).toBe(true);
    expect(store.recordedEvents()).toMatchObject([{ requestId: 'req-y' }]);
  });

  it('of a shift delete is WriteContention with maxAttempts 1, and no event of that caller', async () => {
    const s = xLosesToY();
    const shift = aShift(restaurant.guid, { externalId: 'SCHEDULER:lost' as ExternalId });
    const store = createMemoryStore(seedRecords({ restaurants: [restaurant], shifts: [shift] }));
    const clock = tickingClock();
    const ids = counterIds();
    const x = { ...scheduledDeps(store, s, clock, ids, 'X '), maxAttempts: 1 };
    const y = scheduledDeps(store, s, clock, ids, 'Y ');

    const [fromX, fromY] = await settle(s, [
      deleteShift(x, {
        restaurant: restaurant.guid,
        shift: { kind: 'externalId', externalId: 'SCHEDULER:lost' as ExternalId },
        requestId: 'req-x',
      }),
      deleteShift(y, {
        restaurant: restaurant.guid,
        shift: { kind: 'guid', guid: shift.guid },
        requestId: 'req-y',
      }),
    ]);

    expect(fromX?._unsafeUnwrapErr()).toStrictEqual({
      type: 'WriteContention',
      subject: 'SCHEDULER:lost',
      attempts: 1,
    });
    const won = fromY?._unsafeUnwrap();
    const stored = (
      await store.shifts.find(restaurant.guid, { kind: 'guid', guid: shift.guid })
    )._unsafeUnwrap();
    expect(stored).toStrictEqual(won?.record);
    expect(stored).toMatchObject({ deleted: true, version: 2 });
    expect(store.recordedEvents()).toStrictEqual(won?.events);
    expect(store.recordedEvents()).toMatchObject([{ requestId: 'req-y' }]);
  });

  it('leaves, with maxAttempts 1 and any interleaving, one winner and no trace of the losers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.integer({ min: 2, max: 8 }), async (s, n) => {
        const employee = anArchivedEmployee(restaurant.guid);
        const store = createMemoryStore(
          seedRecords({ restaurants: [restaurant], employees: [employee] }),
        );
        const deps = { ...scheduledDeps(store, s, tickingClock(), counterIds()), maxAttempts: 1 };

        const results = await settle(
          s,
          Array.from({ length: n }, (_, i) =>
            unarchiveEmployee(deps, {
              restaurant: restaurant.guid,
              employee: employee.guid,
              requestId: `req-${i}`,
            }),
          ),
        );

        const winners = results.flatMap((r, i) => (r.isOk() ? [{ i, ...r.value }] : []));
        expect(winners).toHaveLength(1);
        for (const result of results.filter((r) => r.isErr())) {
          expect(result._unsafeUnwrapErr()).toBeOneOf([
            {
              type: 'EmployeeNotArchived',
              restaurantGuid: restaurant.guid,
              employeeGuid: employee.guid,
            },
            { type: 'WriteContention', subject: employee.guid, attempts: 1 },
          ]);
        }
        expect(store.recordedEvents()).toMatchObject([{ requestId: `req-${winners[0]?.i}` }]);
        expect(await storedEmployee(store, employee.guid)).toStrictEqual(winners[0]?.record);
      }),
      { numRuns: 150 },
    );
  });
});

/** The labels of the released tasks, in release order. */
function labels(s: fc.Scheduler): string[] {
  return s
    .report()
    .filter((task) => task.status === 'resolved')
    .map((task) => task.label);
}
