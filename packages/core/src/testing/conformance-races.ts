// The race tests: concurrent writes and use cases over one store. Each runs on the store as it is
// given and with every call the test makes deferred, each form of deferral in turn, so that
// concurrent callers interleave their reads and writes even on a store that answers at once (one
// over better-sqlite3, the memory store).
import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../events.js';
import type { WorkforceStore } from '../ports.js';
import type { Employee, Shift } from '../records.js';
import { archiveEmployee, deleteShift, unarchiveEmployee } from '../use-cases.js';
import { type Deferral, deferredStore } from './asynchronous-store.js';
import { anArchivedEmployee, anEmployee, aShift } from './builders.js';
import {
  anEvent,
  byExternalId,
  byGuid,
  expectStored,
  externalId,
  fixedClock,
  listedEvents,
  randomIds,
  write,
} from './conformance-calls.js';
import {
  expectErrorType,
  expectFound,
  expectOk,
  expectSameRecord,
  shown,
} from './conformance-failures.js';
import type { ConformanceContext } from './store-conformance.js';

/**
 * The store as it is, then deferred by a turn of the event loop, then by shuffled turns. A
 * microtask's deferral would interleave the callers as a turn's does; the memory store's own
 * suite runs with it (`asynchronousStore`).
 */
const FORMS = {
  'the store as given': 'races, on the store as given',
  'event-loop turn': 'races, each call and answer deferred by a turn of the event loop',
  'shuffled turns':
    'races, each call and answer deferred by 0 to 3 turns of the event loop, shuffled',
} as const satisfies Partial<Record<'the store as given' | Deferral, string>>;
type Form = keyof typeof FORMS;

/** How many turns of the event loop the shuffled waits draw from, before they start over. */
const TURN_DRAWS = 4096;

/**
 * The shuffled waits' turn counts, 0 to 3, drawn from the suite's seed (fast-check's generator):
 * each test's race interleaves the same way again when the suite is given the same seed.
 */
function seededTurns(seed: number): () => number {
  const [counts = []] = fc.sample(
    fc.array(fc.integer({ min: 0, max: 3 }), { minLength: TURN_DRAWS, maxLength: TURN_DRAWS }),
    { seed, numRuns: 1 },
  );
  let next = 0;
  return () => counts[next++ % counts.length] ?? 0;
}

/** What the outcomes of concurrent calls were, for a failure: `[ok, VersionConflict, …]`. */
const outcomes = (results: readonly ({ isOk(): boolean; error?: unknown } | undefined)[]) =>
  shown(
    results.map((result) => {
      if (result === undefined) return 'missing';
      return result.isOk()
        ? 'ok'
        : ((result as { error: { type?: string } }).error.type ?? 'error');
    }),
  );

export function describeRaces(ctx: ConformanceContext): void {
  for (const form of Object.keys(FORMS) as Form[]) describeRacesOn(ctx, form);
}

function describeRacesOn(ctx: ConformanceContext, form: Form): void {
  describe(FORMS[form], () => {
    // The store the race's callers use: the test's own, or it deferred.
    let raced: WorkforceStore;
    beforeEach(() => {
      raced =
        form === 'the store as given'
          ? ctx.store()
          : deferredStore(
              ctx.store(),
              form as Deferral,
              form === 'shuffled turns' ? seededTurns(ctx.seed) : undefined,
            );
    });
    const { concurrency, restaurantA, restaurantB } = ctx;
    const deps = () => ({
      employees: raced.employees,
      shifts: raced.shifts,
      clock: fixedClock,
      ids: randomIds,
    });

    it.each(['employees', 'shifts'] as const)(
      `let exactly one of ${concurrency} concurrent %s.write at one version win`,
      async (kind) => {
        const record =
          kind === 'employees' ? anEmployee(restaurantA.guid) : aShift(restaurantA.guid);
        if (kind === 'employees') await ctx.seeded({ employees: [record as Employee] });
        else await ctx.seeded({ shifts: [record as Shift] });
        const results = await Promise.all(
          Array.from({ length: concurrency }, (_, i) =>
            write(raced, kind, {
              record: { ...record, modifiedDate: `2026-03-02T0${i % 10}:00:00.000Z` },
              expectedVersion: 1,
              events: [anEvent(record, kind === 'employees' ? 'EmployeeArchived' : 'ShiftDeleted')],
            }),
          ),
        );

        const winners = results.filter((result) => result.isOk());
        expect(
          winners.length,
          `${kind}.write: of ${concurrency} concurrent writes at version 1, those that succeeded (${outcomes(results)}); one only may: the others must get VersionConflict`,
        ).toBe(1);
        for (const loser of results.filter((result) => result.isErr())) {
          expectErrorType(
            `${kind}.write at version 1 that lost the race`,
            loser,
            'VersionConflict',
          );
        }
        const winner = expectOk(`${kind}.write that won the race`, winners[0]);
        await expectStored(ctx.store(), kind, winner, 'the record the winning write returned');
        expect(
          (await listedEvents(ctx.store())).length,
          'events.list() after one winning write: only its event is stored',
        ).toBe(1);
      },
    );

    it(`give each of many changes at once its own outcome, ${concurrency} to one record`, async () => {
      // Many changes in flight together, as a store that commits in groups would batch them:
      // records written once, a record raced by several writers, a missing record, a refused
      // change of identity. Each gets the outcome it would get alone.
      const alone = Array.from({ length: 3 * concurrency }, () => aShift(restaurantA.guid));
      const racedShift = aShift(restaurantB.guid);
      const renamed = aShift(restaurantA.guid, { externalId: externalId('SCHEDULER:keep') });
      await ctx.seeded({ shifts: [...alone, racedShift, renamed] });
      const writeOf = (shift: Shift, outDate = '2026-03-02T08:00:00.000Z') => {
        const event = anEvent(shift, 'ShiftDeleted');
        return {
          event,
          result: write(raced, 'shifts', {
            record: { ...shift, outDate },
            expectedVersion: 1,
            events: [event],
          }),
        };
      };
      const writes = [
        ...alone.map((shift) => writeOf(shift)),
        ...Array.from({ length: concurrency }, (_, i) =>
          writeOf(racedShift, `2026-03-02T0${i % 10}:00:00.000Z`),
        ),
        writeOf(aShift(restaurantA.guid)),
        {
          event: undefined,
          result: write(raced, 'shifts', {
            record: { ...renamed, externalId: externalId('SCHEDULER:other') },
            expectedVersion: 1,
            events: [anEvent(renamed, 'ShiftDeleted')],
          }),
        },
      ];
      const results = await Promise.all(writes.map((w) => w.result));

      const ofAlone = results.slice(0, alone.length);
      const ofRaced = results.slice(alone.length, alone.length + concurrency);
      const [ofMissing, ofRenamed] = results.slice(alone.length + concurrency);
      ofAlone.forEach((result, i) => {
        const expected = { ...alone[i], outDate: '2026-03-02T08:00:00.000Z', version: 2 };
        expectSameRecord(
          'shifts.write at version 1, with no other write of the record',
          expectOk('shifts.write at version 1, with no other write of the record', result),
          expected,
          'the record written',
        );
      });
      expect(
        ofRaced.filter((result) => result.isOk()).length,
        `shifts.write: of ${concurrency} concurrent writes of one record at version 1, those that succeeded (${outcomes(ofRaced)})`,
      ).toBe(1);
      for (const loser of ofRaced.filter((result) => result.isErr())) {
        expect(
          expectErrorType('shifts.write at version 1 that lost the race', loser, 'VersionConflict')
            .guid,
        ).toBe(racedShift.guid);
      }
      expectErrorType('shifts.write of a record never seeded', ofMissing, 'VersionConflict');
      expect(
        expectErrorType('shifts.write of another external id', ofRenamed, 'IdentityChangeRefused'),
      ).toEqual({ type: 'IdentityChangeRefused', guid: renamed.guid });

      const winner = expectOk(
        'shifts.write that won',
        ofRaced.find((result) => result.isOk()),
      );
      await expectStored(
        ctx.store(),
        'shifts',
        winner as Shift,
        'the record the winning write returned',
      );
      await expectStored(
        ctx.store(),
        'shifts',
        renamed,
        'the seeded record (its renaming was refused)',
      );
      // The events of the changes written, and only theirs, each once.
      const written = writes.filter((_, i) => results[i]?.isOk()).map((w) => w.event);
      const events = await listedEvents(ctx.store());
      expect(
        new Set(events.map((event) => event.eventId)),
        'events.list(): the events of the writes that succeeded, each once',
      ).toEqual(new Set(written.map((event) => event?.eventId)));
      expect(events.length, 'events.list(): each event once').toBe(written.length);
    });

    it('apply successive changes of records, made while others are in flight, in their order', async () => {
      // Each chain changes its record three times, each change on the version the last one
      // stored; the chains run together, so their changes share the store's batches.
      const employees = Array.from({ length: concurrency }, () => anEmployee(restaurantA.guid));
      await ctx.seeded({ employees });
      const chain = async (employee: Employee) => {
        const events: RecordedEvent[] = [];
        let current = employee;
        for (const firstName of ['One', 'Two', 'Three']) {
          const event = anEvent(current, 'EmployeeArchived');
          events.push(event);
          const call = `employees.write of change ${firstName} at version ${current.version}`;
          current = expectOk(
            call,
            await write(raced, 'employees', {
              record: { ...current, firstName },
              expectedVersion: current.version,
              events: [event],
            }),
          ) as Employee;
        }
        return { current, events };
      };
      const chains = await Promise.all(employees.map(chain));

      const stored = await listedEvents(ctx.store());
      expect(stored.length, 'events.list(): one event of each change').toBe(3 * concurrency);
      for (const { current, events } of chains) {
        expect(current, 'employees.write of the third change').toMatchObject({
          firstName: 'Three',
          version: 4,
        });
        await expectStored(ctx.store(), 'employees', current, 'the record the last write returned');
        // A record's events in the outbox in the order of its changes.
        expectSameRecord(
          'events.list()',
          stored.filter(
            (event) => event.type === 'EmployeeArchived' && event.employeeGuid === current.guid,
          ),
          events,
          `the events of record ${current.guid}'s changes, in their order,`,
        );
      }
    });

    it(`let exactly one of ${concurrency} concurrent unarchives succeed, with one event`, async () => {
      const employee = anArchivedEmployee(restaurantA.guid);
      await ctx.seeded({ employees: [employee] });
      const results = await Promise.all(
        Array.from({ length: concurrency }, (_, i) =>
          unarchiveEmployee(deps(), {
            restaurant: restaurantA.guid,
            employee: employee.guid,
            requestId: `req-${i}`,
          }),
        ),
      );

      expect(
        results.filter((result) => result.isOk()).length,
        `unarchiveEmployee (employees.find, then employees.write at the version read): of ${concurrency} concurrent unarchives, those that succeeded (${outcomes(results)}); one only may, the others must find it unarchived: a write at the version read must fail when another write came between`,
      ).toBe(1);
      for (const other of results.filter((result) => result.isErr())) {
        expectErrorType('unarchiveEmployee that lost the race', other, 'EmployeeNotArchived');
      }
      const stored = await expectOneChange(ctx, 'employees', employee, 'EmployeeUnarchived');
      expect(
        stored.deletedDate,
        'employees.find after the unarchive: `deletedDate`',
      ).toBeUndefined();
    });

    it(`let all of ${concurrency} concurrent deletes of one shift succeed, with one change and one event`, async () => {
      const shift = aShift(restaurantA.guid, { externalId: externalId('SCHEDULER:race') });
      await ctx.seeded({ shifts: [shift] });
      const results = await Promise.all(
        Array.from({ length: concurrency }, (_, i) =>
          deleteShift(deps(), {
            restaurant: restaurantA.guid,
            shift: i % 2 === 0 ? byGuid(shift.guid) : byExternalId('SCHEDULER:race'),
            requestId: `req-${i}`,
          }),
        ),
      );

      const committed = results.map((result, i) => expectOk(`deleteShift #${i}`, result));
      expect(
        committed.flatMap((c) => c.events).length,
        `deleteShift: of ${concurrency} concurrent deletes, the events (one only changes the shift)`,
      ).toBe(1);
      await expectOneChange(ctx, 'shifts', shift, 'ShiftDeleted');
    });

    it(`let all of ${concurrency} concurrent archives of one employee succeed, with one change and one event`, async () => {
      const employee = anEmployee(restaurantA.guid, { externalId: externalId('PAYROLL:race') });
      await ctx.seeded({ employees: [employee] });
      const results = await Promise.all(
        Array.from({ length: concurrency }, (_, i) =>
          archiveEmployee(deps(), {
            restaurant: restaurantA.guid,
            employee: i % 2 === 0 ? byGuid(employee.guid) : byExternalId('PAYROLL:race'),
            requestId: `req-${i}`,
          }),
        ),
      );

      const committed = results.map((result, i) => expectOk(`archiveEmployee #${i}`, result));
      expect(
        committed.flatMap((c) => c.events).length,
        `archiveEmployee (employees.find, then employees.write at the version read): of ${concurrency} concurrent archives, the events; one only may change it: a write at the version read must fail when another write came between`,
      ).toBe(1);
      const stored = await expectOneChange(ctx, 'employees', employee, 'EmployeeArchived');
      for (const c of committed) {
        expectSameRecord('archiveEmployee', c.record, stored, 'the stored record');
      }
    });

    it('give each of many use cases at once its own answer, some on the same record', async () => {
      const archived = Array.from({ length: concurrency }, () =>
        anArchivedEmployee(restaurantA.guid),
      );
      const active = Array.from({ length: concurrency }, () => anEmployee(restaurantB.guid));
      const shifts = Array.from({ length: concurrency }, (_, i) =>
        aShift(restaurantA.guid, { externalId: externalId(`SCHEDULER:many-${i}`) }),
      );
      await ctx.seeded({ employees: [...archived, ...active], shifts });
      const requestId = (what: string, i: number) => `req-${what}-${i}`;
      const [unarchives, archives, deletes] = await Promise.all([
        // Each archived employee unarchived twice: one succeeds, the other finds it unarchived.
        Promise.all(
          [...archived, ...archived].map((employee, i) =>
            unarchiveEmployee(deps(), {
              restaurant: restaurantA.guid,
              employee: employee.guid,
              requestId: requestId('unarchive', i),
            }),
          ),
        ),
        Promise.all(
          active.map((employee, i) =>
            archiveEmployee(deps(), {
              restaurant: restaurantB.guid,
              employee: byGuid(employee.guid),
              requestId: requestId('archive', i),
            }),
          ),
        ),
        // Each shift deleted by GUID and by external id at once: both succeed, one changes it.
        Promise.all(
          shifts.flatMap((shift, i) => [
            deleteShift(deps(), {
              restaurant: restaurantA.guid,
              shift: byGuid(shift.guid),
              requestId: requestId('delete', 2 * i),
            }),
            deleteShift(deps(), {
              restaurant: restaurantA.guid,
              shift: byExternalId(`SCHEDULER:many-${i}`),
              requestId: requestId('delete', 2 * i + 1),
            }),
          ]),
        ),
      ]);

      archived.forEach((employee, i) => {
        const pair = [unarchives[i], unarchives[i + concurrency]];
        const succeeded = pair.filter((result) => result?.isOk());
        expect(
          succeeded.length,
          `unarchiveEmployee twice at once of employee ${employee.guid}: those that succeeded (${outcomes(pair)})`,
        ).toBe(1);
        expect(expectOk('unarchiveEmployee', succeeded[0]).record).toMatchObject({
          guid: employee.guid,
          deleted: false,
          version: 2,
        });
        expectErrorType(
          'unarchiveEmployee that lost the race',
          pair.find((result) => result?.isErr()),
          'EmployeeNotArchived',
        );
      });
      archives.forEach((result, i) => {
        const committed = expectOk(`archiveEmployee of employee ${active[i]?.guid}`, result);
        expect(committed.record).toMatchObject({
          guid: active[i]?.guid,
          deleted: true,
          version: 2,
        });
        expect(committed.events.length, 'archiveEmployee: its event').toBe(1);
      });
      shifts.forEach((shift, i) => {
        const pair = [deletes[2 * i], deletes[2 * i + 1]].map((result) =>
          expectOk(`deleteShift of shift ${shift.guid}`, result),
        );
        for (const committed of pair) {
          expect(committed.record).toMatchObject({ guid: shift.guid, deleted: true, version: 2 });
        }
        expect(
          pair.flatMap((committed) => committed.events).length,
          `deleteShift twice at once of shift ${shift.guid}: the events (one only changes it)`,
        ).toBe(1);
      });
      const answered = [...unarchives, ...archives, ...deletes].flatMap((result) =>
        result.isOk() ? result.value.events : [],
      );
      const events = await listedEvents(ctx.store());
      expect(events.length, 'events.list(): one event of each change').toBe(3 * concurrency);
      expect(new Set(events.map((event) => event.eventId))).toEqual(
        new Set(answered.map((event) => event.eventId)),
      );
    });
  });
}

/** Fails unless the record was changed once (version 2) with one event of `type`; the record. */
async function expectOneChange<K extends 'employees' | 'shifts'>(
  ctx: ConformanceContext,
  kind: K,
  record: Employee | Shift,
  type: RecordedEvent['type'],
): Promise<Employee | Shift> {
  const stored = expectFound(
    `${kind}.find by GUID after the race`,
    await ctx.store()[kind].find(record.restaurantGuid, byGuid(record.guid)),
  );
  expect(stored, `${kind}.find by GUID after the race: the record changed once`).toMatchObject({
    version: 2,
  });
  const events = await listedEvents(ctx.store());
  expect(
    events.map((event) => event.type),
    `events.list() after the race: the one change's event`,
  ).toEqual([type]);
  return stored as Employee | Shift;
}
