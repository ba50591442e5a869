// Type-level checks: `deletedDate` is present exactly when `deleted` is true, for the compiler.
// Each `@ts-expect-error` fails the type check (pnpm typecheck) when the line compiles.
import type { Employee, Shift } from '@workforce-kit/core';
import { anEmployee, aShift, newGuid } from '@workforce-kit/core/testing';
import { expect, it } from 'vitest';

const at = '2026-03-01T12:00:00.000Z';
const {
  deleted: _employeeDeleted,
  deletedDate: _employeeDate,
  ...employee
} = anEmployee(newGuid());
const { deleted: _shiftDeleted, deletedDate: _shiftDate, ...shift } = aShift(newGuid());

it('types a record deleted with its date, or not deleted without one', () => {
  const archived: Employee = { ...employee, deleted: true, deletedDate: at };
  const active: Employee = { ...employee, deleted: false };
  const deletedShift: Shift = { ...shift, deleted: true, deletedDate: at };
  const liveShift: Shift = { ...shift, deleted: false };
  expect([archived, active, deletedShift, liveShift].map((record) => record.deleted)).toEqual([
    true,
    false,
    true,
    false,
  ]);
});

it('refuses a deleted record without its date, and a date on a record that is not deleted', () => {
  // @ts-expect-error an archived employee has a deletedDate
  const undated: Employee = { ...employee, deleted: true };
  // @ts-expect-error an employee who is not archived has none
  const dated: Employee = { ...employee, deleted: false, deletedDate: at };
  // @ts-expect-error a deleted shift has a deletedDate
  const undatedShift: Shift = { ...shift, deleted: true };
  // @ts-expect-error a shift that is not deleted has none
  const datedShift: Shift = { ...shift, deleted: false, deletedDate: at };
  expect([undated, dated, undatedShift, datedShift]).toHaveLength(4);
});
