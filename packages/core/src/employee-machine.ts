import { err, ok, type Result } from 'neverthrow';
import { type EmployeeNotArchived, employeeNotArchived } from './errors.js';
import type { Employee } from './records.js';
import type { Transition } from './transition.js';

/**
 * Archives an employee: `deleted: true`, `deletedDate` and `modifiedDate` set to `now`. Jobs and
 * wage overrides are kept (unarchiving restores them); the swipe card association is dropped.
 * Archiving an archived employee is a no-op, as the platform's labor API defines it: the same
 * record, `modifiedDate` included, and no event. It never fails.
 *
 * | state | next | event |
 * |---|---|---|
 * | unarchived | archived | `EmployeeArchived` |
 * | archived | archived (unchanged) | none |
 *
 * @param employee - the employee as read
 * @param now - the time of the change
 * @returns the archived employee and its event, if any
 * @example
 * ```ts
 * archive(employee, new Date()).record.deleted; // true
 * ```
 */
export function archive(employee: Employee, now: Date): Transition<Employee> {
  if (employee.deleted) return { record: employee, events: [] };
  const at = now.toISOString();
  const { swipeCard: _dropped, ...kept } = employee;
  return {
    record: { ...kept, deleted: true, deletedDate: at, modifiedDate: at },
    events: [
      {
        type: 'EmployeeArchived',
        restaurantGuid: employee.restaurantGuid,
        employeeGuid: employee.guid,
        occurredAt: at,
      },
    ],
  };
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
    record: { ...kept, deleted: false, modifiedDate: at },
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
