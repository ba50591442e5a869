import { archive, type Employee, markDeleted, unarchive } from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aShift,
  employeeArb,
  newGuid,
  shiftArb,
} from '@workforce-kit/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const restaurantGuid = newGuid();
const now = new Date('2026-03-01T12:34:56.789Z');
const at = now.toISOString();

describe('archive', () => {
  it('archives an employee: deleted, dates set, jobs and wages kept, swipe card dropped', () => {
    const employee = anEmployee(restaurantGuid);
    const { record, events } = archive(employee, now);
    const { swipeCard: _dropped, ...kept } = employee;

    expect(record).toEqual({ ...kept, deleted: true, deletedDate: at, modifiedDate: at });
    expect(record.swipeCard).toBeUndefined();
    expect(events).toEqual([
      { type: 'EmployeeArchived', restaurantGuid, employeeGuid: employee.guid, occurredAt: at },
    ]);
  });

  it('is a no-op on an archived employee: the same record, modifiedDate included, no event', () => {
    fc.assert(
      fc.property(
        employeeArb(restaurantGuid),
        fc.date({ noInvalidDate: true }),
        (employee, when) => {
          const once = archive(employee, when).record;
          const twice = archive(once, new Date(when.getTime() + 60_000));
          expect(twice.record).toBe(once);
          expect(twice.events).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('leaves the given record untouched (it is pure)', () => {
    const employee = Object.freeze(anEmployee(restaurantGuid));
    const copy = structuredClone(employee);
    archive(employee, now);
    expect(employee).toEqual(copy);
  });
});

describe('unarchive', () => {
  it('unarchives an employee: not deleted, deletedDate removed, jobs and wages kept', () => {
    const employee = anArchivedEmployee(restaurantGuid);
    const { record, events } = unarchive(employee, now)._unsafeUnwrap();
    const { deletedDate: _removed, ...rest } = employee;

    expect(record).toEqual({ ...rest, deleted: false, modifiedDate: at });
    expect('deletedDate' in record).toBe(false);
    expect(events).toEqual([
      { type: 'EmployeeUnarchived', restaurantGuid, employeeGuid: employee.guid, occurredAt: at },
    ]);
  });

  it('does not re-associate a swipe card, even one still on the record', () => {
    const employee: Employee = { ...anArchivedEmployee(restaurantGuid), swipeCard: 'card-7' };
    expect(unarchive(employee, now)._unsafeUnwrap().record.swipeCard).toBeUndefined();
  });

  it('refuses an employee that is not archived with EmployeeNotArchived', () => {
    const employee = anEmployee(restaurantGuid);
    expect(unarchive(employee, now)._unsafeUnwrapErr()).toEqual({
      type: 'EmployeeNotArchived',
      restaurantGuid,
      employeeGuid: employee.guid,
    });
  });

  it('undoes archive for any employee, but for the swipe card and dates', () => {
    fc.assert(
      fc.property(
        employeeArb(restaurantGuid),
        fc.date({ noInvalidDate: true }),
        (employee, when) => {
          const live = employee.deleted
            ? unarchive(employee, when)._unsafeUnwrap().record
            : employee;
          const back = unarchive(archive(live, when).record, when)._unsafeUnwrap();
          const { swipeCard: _s1, modifiedDate: _m1, ...before } = live;
          const { swipeCard: _s2, modifiedDate: _m2, ...after } = back.record;
          expect(after).toEqual(before);
          expect(back.record.swipeCard).toBeUndefined();
          expect(back.events).toHaveLength(1);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps deletedDate present exactly when deleted, for every transition of any employee', () => {
    fc.assert(
      fc.property(employeeArb(restaurantGuid), (employee) => {
        const unarchived = unarchive(employee, now);
        const transitions = [
          archive(employee, now),
          ...(unarchived.isOk() ? [unarchived.value] : []),
        ];
        for (const { record } of transitions) {
          expect(record.deletedDate !== undefined).toBe(record.deleted);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('markDeleted', () => {
  it('deletes a live shift: deleted, deletedDate and modifiedDate set, one event', () => {
    const shift = aShift(restaurantGuid);
    const { record, events } = markDeleted(shift, now);

    expect(record).toEqual({ ...shift, deleted: true, deletedDate: at, modifiedDate: at });
    expect(events).toEqual([
      { type: 'ShiftDeleted', restaurantGuid, shiftGuid: shift.guid, occurredAt: at },
    ]);
  });

  it('is a no-op on a deleted shift: the same record, modifiedDate included, no event', () => {
    fc.assert(
      fc.property(shiftArb(restaurantGuid), fc.date({ noInvalidDate: true }), (shift, when) => {
        const once = markDeleted(shift, when).record;
        const twice = markDeleted(once, new Date(when.getTime() + 60_000));
        expect(twice.record).toBe(once);
        expect(twice.events).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
