// seedArb, the valid seeds the round-trip properties of parse-seed.test.ts draw from: records
// from the core's arbitraries, kept to the seed rules, and clients for some of the restaurants.
import type { ExternalId, Guid } from '@workforce-kit/core';
import { employeeArb, restaurantArb, shiftArb } from '@workforce-kit/core/testing';
import { SCOPES, type Seed, type SeedClient } from '@workforce-kit/seed-file';
import fc from 'fast-check';

/** Keeps the records that satisfy the seed rules: unique GUIDs, external ids unique per restaurant. */
function uniqueRecords<T extends { restaurantGuid: Guid; guid: Guid; externalId?: ExternalId }>(
  records: T[],
): T[] {
  const seen = new Set<string>();
  return records.filter((record) => {
    const keys = [
      record.guid,
      ...(record.externalId === undefined ? [] : [`${record.restaurantGuid} ${record.externalId}`]),
    ];
    if (keys.some((key) => seen.has(key))) return false;
    for (const key of keys) seen.add(key);
    return true;
  });
}

/**
 * A valid seed: 1 to `maxRestaurants` restaurants, each with employees and shifts that satisfy
 * the seed rules, and clients for some of them.
 */
export function seedArb({
  maxRestaurants = 3,
  maxRecordsPerRestaurant = 4,
}: {
  maxRestaurants?: number;
  maxRecordsPerRestaurant?: number;
} = {}): fc.Arbitrary<Seed> {
  return fc
    .uniqueArray(restaurantArb, {
      minLength: 1,
      maxLength: maxRestaurants,
      selector: (r) => r.guid,
    })
    .chain((restaurants) =>
      fc
        .tuple(
          ...restaurants.map((restaurant) =>
            fc.tuple(
              fc.array(employeeArb(restaurant.guid), { maxLength: maxRecordsPerRestaurant }),
              fc.array(shiftArb(restaurant.guid), { maxLength: maxRecordsPerRestaurant }),
            ),
          ),
        )
        .chain((perRestaurant) =>
          fc
            .array(
              fc.record(
                {
                  clientId: fc.stringMatching(/^[a-z][a-z0-9-]{2,20}$/),
                  clientSecret: fc.stringMatching(/^[A-Za-z0-9]{16,32}$/),
                  scopes: fc.subarray([...SCOPES], { minLength: 1 }),
                  restaurants: fc.oneof(
                    fc.constant(['*' as const]),
                    fc.subarray(restaurants.map((r) => r.guid)),
                  ),
                },
                { noNullPrototype: true },
              ),
              { maxLength: 2 },
            )
            .map(
              (clients): Seed => ({
                restaurants,
                employees: uniqueRecords(perRestaurant.flatMap(([e]) => e)).map((e) => ({
                  ...e,
                  version: 1,
                })),
                shifts: uniqueRecords(perRestaurant.flatMap(([, s]) => s)).map((s) => ({
                  ...s,
                  version: 1,
                })),
                clients: uniqueClients(clients),
              }),
            ),
        ),
    );
}

function uniqueClients(clients: SeedClient[]): SeedClient[] {
  const ids = new Set<string>();
  return clients.filter((client) => !ids.has(client.clientId) && ids.add(client.clientId));
}
