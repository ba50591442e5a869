// Records given back as they were stored, field by field: employees and shifts over the whole
// shape the spec allows, seeded, found by GUID and by external id, and changed by every step of
// their state machines through the use cases; what the store gives back is what the state machine
// produced, `deletedDate` and `modifiedDate` included.
import { describe, expect, it } from 'vitest';
import { archive, unarchive } from '../employee-machine.js';
import type { RecordedEvent } from '../events.js';
import type { Clock } from '../ports.js';
import type { Employee, Shift } from '../records.js';
import { markDeleted } from '../shift-machine.js';
import { archiveEmployee, deleteShift, unarchiveEmployee } from '../use-cases.js';
import {
  byExternalId,
  byGuid,
  expectStored,
  listedEvents,
  randomIds,
} from './conformance-calls.js';
import { expectOk, expectSameRecord } from './conformance-failures.js';
import { recordsToRoundTrip } from './conformance-records.js';
import type { ConformanceContext } from './store-conformance.js';

/** Generated records of each kind besides the edge shapes every run has. */
const GENERATED = 10;

/** The next time of a change: a minute after the last. */
function later(clock: { at: Date }): Date {
  clock.at = new Date(clock.at.getTime() + 60_000);
  return clock.at;
}

/** A record's external id when it has one (a use case then finds it by that), else its GUID. */
const idOf = (record: Employee | Shift) =>
  record.externalId === undefined ? byGuid(record.guid) : byExternalId(record.externalId);

/** A clock the test sets before each change, so that each change has a time of its own. */
function settableClock(): Clock & { at: Date } {
  const clock = { at: new Date('2026-03-01T12:00:00.000Z'), now: () => clock.at };
  return clock;
}

/** Runs `check`, naming the seed of the generated records in its failure. */
async function withSeed(seed: number, check: () => Promise<void>): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (error instanceof Error) {
      error.message = `${error.message}\n(records generated with seed ${seed}: describeStoreConformance(name, makeStore, { seed: ${seed} }) generates them again)`;
    }
    throw error;
  }
}

export function describeRoundTrips(ctx: ConformanceContext): void {
  /** Each record's changes, all records at once; then every change's event, each once, in order. */
  async function changeEach<T extends Employee | Shift>(
    records: readonly T[],
    change: (record: T, clock: Clock & { at: Date }) => Promise<readonly RecordedEvent[]>,
  ): Promise<void> {
    const changes = await Promise.all(records.map((record) => change(record, settableClock())));
    const listed = await listedEvents(ctx.store());
    expect(listed.length, 'events.list(): one event of each change').toBe(changes.flat().length);
    records.forEach((record, i) => {
      const subject = (event: RecordedEvent) =>
        event.type === 'ShiftDeleted' ? event.shiftGuid : event.employeeGuid;
      expectSameRecord(
        'events.list()',
        listed.filter((event) => subject(event) === record.guid),
        changes[i],
        `the events of record ${record.guid}'s changes, in their order,`,
      );
    });
  }

  describe('records given back as stored, field by field', () => {
    it('employees of every shape: seeded, found by GUID and external id, archived and unarchived', async () => {
      const { employees } = recordsToRoundTrip(ctx.restaurantA.guid, ctx.seed, GENERATED);
      await withSeed(ctx.seed, async () => {
        await ctx.seeded({ employees });
        const store = ctx.store();
        for (const employee of employees) {
          await expectStored(store, 'employees', employee, 'the seeded record');
        }
        await changeEach(employees, async (employee, clock) => {
          const deps = { employees: store.employees, clock, ids: randomIds };
          const events: RecordedEvent[] = [];
          let current = employee;
          const steps = current.deleted
            ? (['unarchive', 'archive'] as const)
            : (['archive', 'unarchive'] as const);
          for (const step of steps) {
            const at = later(clock);
            const command = {
              restaurant: current.restaurantGuid,
              requestId: `req-${step}-${current.guid}`,
            };
            const committed = expectOk(
              `${step}Employee (employees.find, then employees.write) of record ${current.guid}`,
              step === 'archive'
                ? await archiveEmployee(deps, { ...command, employee: idOf(current) })
                : await unarchiveEmployee(deps, { ...command, employee: current.guid }),
            );
            const produced =
              step === 'archive'
                ? archive(current, at)
                : expectOk('unarchive', unarchive(current, at));
            const expected: Employee = { ...produced.record, version: current.version + 1 };
            expectSameRecord(
              `employees.write of the ${step}`,
              committed.record,
              expected,
              `the record ${step} produced`,
            );
            await expectStored(store, 'employees', expected, `the record ${step} produced`);
            events.push(...committed.events);
            current = expected;
          }
          return events;
        });
      });
    });

    it('shifts of every shape: seeded, found by GUID and external id, deleted, and deleted again', async () => {
      const { shifts } = recordsToRoundTrip(ctx.restaurantA.guid, ctx.seed, GENERATED);
      await withSeed(ctx.seed, async () => {
        await ctx.seeded({ shifts });
        const store = ctx.store();
        for (const shift of shifts) {
          await expectStored(store, 'shifts', shift, 'the seeded record');
        }
        await changeEach(shifts, async (shift, clock) => {
          const deps = { shifts: store.shifts, clock, ids: randomIds };
          const events: RecordedEvent[] = [];
          let current = shift;
          // A delete, then another, which changes nothing.
          for (const _ of [1, 2]) {
            const at = later(clock);
            const committed = expectOk(
              `deleteShift (shifts.find, then shifts.write) of record ${current.guid}`,
              await deleteShift(deps, {
                restaurant: current.restaurantGuid,
                shift: idOf(current),
                requestId: `req-delete-${current.guid}`,
              }),
            );
            const produced = markDeleted(current, at);
            const changed = produced.events.length > 0;
            const expected: Shift = changed
              ? { ...produced.record, version: current.version + 1 }
              : current;
            expectSameRecord(
              changed ? 'shifts.write of the delete' : 'shifts.find of a deleted shift',
              committed.record,
              expected,
              'the record markDeleted produced',
            );
            await expectStored(store, 'shifts', expected, 'the record markDeleted produced');
            events.push(...committed.events);
            current = expected;
          }
          return events;
        });
      });
    });
  });
}
