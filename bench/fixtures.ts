import type { Guid } from '@workforce-kit/core';
import { anEmployee, aRestaurant, aShift } from '@workforce-kit/core/testing';
import type { Seed } from '@workforce-kit/seed-file';
import { aClient, aSeed } from '@workforce-kit/seed-file/testing';

/** The HS256 secret the benchmark server verifies and the driver signs with. */
export const BENCH_SECRET = 'workforce-kit-benchmark-secret-0123456789';
/** One employee per load-generator connection, so that archive/unarchive cycles never collide. */
export const EMPLOYEES = 256;

const restaurant = aRestaurant({
  guid: 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b' as Guid,
  general: {
    name: 'Harbor Street Kitchen',
    timeZone: 'America/New_York',
    currencyCode: 'USD',
    archived: false,
  },
});

/** A deterministic seed: the restaurant of the example, its employees, a shift. */
export function benchSeed(): Seed {
  return aSeed({
    restaurants: [restaurant],
    employees: Array.from({ length: EMPLOYEES }, (_, i) =>
      anEmployee(restaurant.guid, { guid: employeeGuid(i), version: 1 }),
    ),
    shifts: [aShift(restaurant.guid)],
    clients: [aClient([restaurant.guid])],
  });
}

export const RESTAURANT_GUID = restaurant.guid;

export function employeeGuid(i: number): Guid {
  return `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` as Guid;
}
