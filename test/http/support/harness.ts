// Test support of the HTTP-level suite: the API of an adapter over a seeded memory store, served
// over real HTTP, with response validation on, a logger that keeps every line, and tokens
// (@workforce-kit/http/testing's).
import {
  createMemoryStore,
  type Employee,
  type MemoryStore,
  type Restaurant,
  type SeedRecords,
  type Shift,
} from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  seedRecords,
} from '@workforce-kit/core/testing';
import { type ApiOptions, createJwtVerifier } from '@workforce-kit/http';
import { TEST_SECRET } from '@workforce-kit/http/testing';
import { pino } from 'pino';
import type { Adapter, Served } from '../../support/adapters.js';

export { tokenFor } from '@workforce-kit/http/testing';
export { ADAPTERS, type Adapter } from '../../support/adapters.js';

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

export interface TestApp {
  /** The app's base URL, for `request(url)`. */
  readonly url: string;
  readonly store: MemoryStore;
  readonly world: World;
  /** Every log line written, parsed. */
  readonly logs: Record<string, unknown>[];
}

const serving = new Set<Served>();

/**
 * The adapter's app with the API at the root, listening: response validation on, a test logger,
 * over a memory store of `world`. Stop every app a test file started with {@link closeApps}.
 */
export async function testApp(
  adapter: Adapter,
  overrides: Partial<ApiOptions> = {},
  world: World = aWorld(),
): Promise<TestApp> {
  const store = createMemoryStore(world.seed);
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const served = await adapter.serve({
    store,
    auth: createJwtVerifier({ hs256Secret: TEST_SECRET }),
    validateResponses: true,
    logger,
    ...overrides,
  });
  serving.add(served);
  return { url: served.url, store, world, logs };
}

/** Closes every app {@link testApp} started (in the file's `afterAll`). */
export async function closeApps(): Promise<void> {
  const apps = [...serving];
  serving.clear();
  await Promise.all(apps.map((app) => app.close()));
}
