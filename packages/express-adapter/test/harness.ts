// Test support: a real Express app with the router over a seeded memory store, and tokens.
import {
  createMemoryStore,
  type Employee,
  type MemoryStore,
  type Restaurant,
  type Seed,
  type Shift,
} from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aSeed,
  aShift,
} from '@workforce-kit/core/testing';
import express, { type Express } from 'express';
import { type JWTPayload, SignJWT } from 'jose';
import { pino } from 'pino';
import { createJwtVerifier, createRouter, type RouterOptions } from '../src/index.js';

export const SECRET = 'workforce-kit-test-secret-0123456789abcdef';
export const ALL_SCOPES = 'labor.employees:write labor.shifts:write restaurants:read';

/** Signs an HS256 access token; claims default to every scope for `restaurants`, valid 5 minutes. */
export async function tokenFor(
  restaurants: readonly string[] | '*',
  claims: JWTPayload & { scope?: string } = {},
  { secret = SECRET, expiresIn = '5m' as string | number } = {},
): Promise<string> {
  return new SignJWT({ scope: ALL_SCOPES, restaurants, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

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
  readonly seed: Seed;
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
    seed: aSeed({
      restaurants: [restaurant, other, archivedRestaurant],
      employees: [employee, archivedEmployee, otherEmployee],
      shifts: [shift, deletedShift, otherShift],
    }),
  };
}

export interface TestApp {
  readonly app: Express;
  readonly store: MemoryStore;
  readonly world: World;
  /** Every log line written, parsed. */
  readonly logs: Record<string, unknown>[];
}

/** An app with the router mounted at the root, response validation on, and a test logger. */
export async function testApp(
  overrides: Partial<RouterOptions> = {},
  world: World = aWorld(),
): Promise<TestApp> {
  const store = createMemoryStore(world.seed);
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const router = createRouter({
    store,
    auth: createJwtVerifier({ hs256Secret: SECRET }),
    validateResponses: true,
    logger,
    ...overrides,
  });
  await router.ready;
  const app = express();
  app.use(router);
  return { app, store, world, logs };
}
