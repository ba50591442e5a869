import type { Guid } from '@workforce-kit/core';
import type { Seed, SeedClient } from '../parse-seed.js';

/**
 * A login client that may act for `restaurants` with every scope.
 *
 * @example
 * ```ts
 * const scheduler = aClient([restaurant.guid], { scopes: ['labor.shifts:write'] });
 * ```
 */
export function aClient(
  restaurants: readonly (Guid | '*')[],
  overrides: Partial<SeedClient> = {},
): SeedClient {
  return {
    clientId: `client-${globalThis.crypto.randomUUID().slice(0, 8)}`,
    clientSecret: 'correct-horse-battery-staple',
    scopes: ['labor.employees:write', 'labor.shifts:write', 'restaurants:read'],
    restaurants,
    ...overrides,
  };
}

/**
 * A seed of the given parts; the missing collections are empty. Records come from the core's
 * builders (`@workforce-kit/core/testing`).
 *
 * @example
 * ```ts
 * const seed = aSeed({ restaurants: [restaurant], clients: [aClient([restaurant.guid])] });
 * ```
 */
export function aSeed(parts: Partial<Seed> = {}): Seed {
  return { restaurants: [], employees: [], shifts: [], clients: [], ...parts };
}
