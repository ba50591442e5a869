import type { SeedRecords } from '../ports.js';
import type { Employee, Restaurant, Shift } from '../records.js';
import { anArchivedEmployee, anEmployee, aRestaurant, aShift, seedRecords } from './builders.js';

/** The records of {@link aWorld}, and the seed of them all. */
export interface World {
  readonly restaurant: Restaurant;
  /** An employee of the restaurant, not archived. */
  readonly employee: Employee;
  /** An archived employee of the restaurant. */
  readonly archivedEmployee: Employee;
  /** A shift of the restaurant, not deleted. */
  readonly shift: Shift;
  readonly seed: SeedRecords;
}

/**
 * One restaurant with an employee, an archived employee and a shift (new GUIDs each call), and
 * the seed of them: enough for a host's test to reach every operation of the API once.
 *
 * @example
 * ```ts
 * import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
 *
 * const world = aWorld();
 * const router = createRouter({ store: createMemoryStore(world.seed), auth: createJwtVerifier({ hs256Secret }) });
 * ```
 */
export function aWorld(): World {
  const restaurant = aRestaurant();
  const employee = anEmployee(restaurant.guid);
  const archivedEmployee = anArchivedEmployee(restaurant.guid);
  const shift = aShift(restaurant.guid);
  return {
    restaurant,
    employee,
    archivedEmployee,
    shift,
    seed: seedRecords({
      restaurants: [restaurant],
      employees: [employee, archivedEmployee],
      shifts: [shift],
    }),
  };
}
