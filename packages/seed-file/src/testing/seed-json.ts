import type { Restaurant } from '@workforce-kit/core';
import type { Seed } from '../parse-seed.js';

function restaurantJson(restaurant: Restaurant): unknown {
  const daySchedules = restaurant.schedules?.daySchedules;
  if (restaurant.schedules === undefined || daySchedules === undefined) return restaurant;
  const { identifier, byKey } = daySchedules;
  return {
    ...restaurant,
    schedules: {
      ...restaurant.schedules,
      daySchedules: { ...(identifier === undefined ? {} : { identifier }), ...byKey },
    },
  };
}

/**
 * Writes a seed in the seed-file format (the inverse of `parseSeed`, but for versions, which every
 * seeded record starts at 1). Handy for seed files in tests.
 *
 * @example
 * ```ts
 * import { writeFile } from 'node:fs/promises';
 *
 * await writeFile('seed.json', JSON.stringify(seedToJson(seed)));
 * ```
 */
export function seedToJson(seed: Seed): unknown {
  return {
    restaurants: seed.restaurants.map(restaurantJson),
    employees: seed.employees.map(({ version: _version, ...employee }) => employee),
    shifts: seed.shifts.map(({ version: _version, ...shift }) => shift),
    clients: seed.clients,
  };
}
