// The records every HTTP-level test app starts with, made in the test's process; a server in
// another process (Bun, Deno: test/runtimes) is given their seed, which is plain JSON.
import type { Employee, Restaurant, SeedRecords, Shift } from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  seedRecords,
} from '@workforce-kit/core/testing';

/** The records every test app starts with: two restaurants, an archived one, employees, shifts. */
export interface World {
  readonly restaurant: Restaurant;
  readonly other: Restaurant;
  readonly archivedRestaurant: Restaurant;
  readonly employee: Employee;
  readonly archivedEmployee: Employee;
  readonly otherEmployee: Employee;
  readonly shift: Shift;
  readonly deletedShift: Shift;
  readonly otherShift: Shift;
  readonly seed: SeedRecords;
}

export function aWorld(): World {
  const restaurant = aRestaurant();
  const other = aRestaurant({ general: { name: 'Other Place', archived: false } });
  const archivedRestaurant = aRestaurant({ general: { name: 'Closed', archived: true } });
  // The same external id in both restaurants: it names each restaurant's own employee only.
  const payrollId = 'PAYROLL:10042' as Employee['externalId'] & string;
  const employee = anEmployee(restaurant.guid, { externalId: payrollId });
  const archivedEmployee = anArchivedEmployee(restaurant.guid);
  const otherEmployee = anArchivedEmployee(other.guid, { externalId: payrollId });
  const shift = aShift(restaurant.guid, {
    externalId: 'SCHEDULER:shift-1' as Shift['externalId'] & string,
  });
  const deletedShift = aShift(restaurant.guid, {
    deleted: true,
    deletedDate: '2026-02-01T00:00:00.000Z',
  });
  const otherShift = aShift(other.guid, {
    externalId: 'SCHEDULER:shift-1' as Shift['externalId'] & string,
  });
  return {
    restaurant,
    other,
    archivedRestaurant,
    employee,
    archivedEmployee,
    otherEmployee,
    shift,
    deletedShift,
    otherShift,
    seed: seedRecords({
      restaurants: [restaurant, other, archivedRestaurant],
      employees: [employee, archivedEmployee, otherEmployee],
      shifts: [shift, deletedShift, otherShift],
    }),
  };
}
