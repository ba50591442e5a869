import { err, ok, type Result } from 'neverthrow';
import {
  type EmployeeAlreadyArchived,
  type EmployeeNotArchived,
  employeeAlreadyArchived,
  employeeNotArchived,
} from './errors.js';
import type { Employee } from './records.js';
import type { Transition } from './transition.js';

/**
 * Archives an employee: `deleted: true`, `deletedDate` and `modifiedDate` set to `now`. Jobs and
 * wage overrides are kept (unarchiving restores them); the swipe card association is dropped.
 *
 * | state | next | event |
 * |---|---|---|
 * | unarchived | archived | `EmployeeArchived` |
 * | archived | (error) `EmployeeAlreadyArchived` | none |
 *
 * @param employee - the employee as read
 * @param now - the time of the change
 * @returns the archived employee and its event, or `EmployeeAlreadyArchived`
 * @example
 * ```ts
 * archive(employee, new Date()).map(({ record }) => record.deleted); // ok(true)
 * ```
 */
export function archive(
  employee: Employee,
  now: Date,
): Result<Transition<Employee>, EmployeeAlreadyArchived> {
  if (employee.deleted) {
    return err(employeeAlreadyArchived(employee.restaurantGuid, employee.guid));
  }
  const at = now.toISOString();
  // `kept` is a fresh copy, ours to complete (one object per transition, not two).
  const { swipeCard: _dropped, ...kept } = employee;
  return ok({
    record: Object.assign(kept, { deleted: true, deletedDate: at, modifiedDate: at }),
    events: [
      {
        type: 'EmployeeArchived',
        restaurantGuid: employee.restaurantGuid,
        employeeGuid: employee.guid,
        occurredAt: at,
      },
    ],
  });
}

/**
 * Unarchives an employee: `deleted: false`, `deletedDate` removed, `modifiedDate` set to `now`.
 * Every job reference and wage override is kept, so the employee holds the same jobs again. A
 * swipe card is not re-associated (archiving dropped it).
 *
 * | state | next | event |
 * |---|---|---|
 * | archived | unarchived | `EmployeeUnarchived` |
 * | unarchived | (error) `EmployeeNotArchived` | none |
 *
 * @param employee - the employee as read
 * @param now - the time of the change
 * @returns the unarchived employee and its event, or `EmployeeNotArchived`
 * @example
 * ```ts
 * unarchive(archivedEmployee, new Date()).map(({ record }) => record.deleted); // ok(false)
 * ```
 */
export function unarchive(
  employee: Employee,
  now: Date,
): Result<Transition<Employee>, EmployeeNotArchived> {
  if (!employee.deleted) {
    return err(employeeNotArchived(employee.restaurantGuid, employee.guid));
  }
  const at = now.toISOString();
  const { deletedDate: _removed, swipeCard: _notRestored, ...kept } = employee;
  return ok({
    record: Object.assign(kept, { deleted: false, modifiedDate: at }),
    events: [
      {
        type: 'EmployeeUnarchived',
        restaurantGuid: employee.restaurantGuid,
        employeeGuid: employee.guid,
        occurredAt: at,
      },
    ],
  });
}
