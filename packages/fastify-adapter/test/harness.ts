// Test support: the records a host app's plugin serves, its options, and tokens for it.
import {
  createMemoryStore,
  type Employee,
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
import { type JWTPayload, SignJWT } from 'jose';
import { createJwtVerifier, type Logger, type WorkforceKitOptions } from '../src/index.js';

export const SECRET = 'workforce-kit-test-secret-0123456789abcdef';
export const ALL_SCOPES = 'labor.employees:write labor.shifts:write restaurants:read';
export const CONTEXT = 'platform-restaurant-external-id';

/** Signs an HS256 access token; claims default to every scope for `restaurants`, valid 5 minutes. */
export async function tokenFor(
  restaurants: readonly string[] | '*',
  claims: JWTPayload & { scope?: string } = {},
): Promise<string> {
  return new SignJWT({ scope: ALL_SCOPES, restaurants, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
}

/** The records of a test app: a restaurant, an employee, an archived one, a shift. */
export interface World {
  readonly restaurant: Restaurant;
  readonly employee: Employee;
  readonly archivedEmployee: Employee;
  readonly shift: Shift;
  readonly seed: SeedRecords;
}

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

/** A logger that writes nothing. */
const silent: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silent,
};

/** The plugin's options over a memory store of `world`, responses validated, logging nothing. */
export function optionsFor(world: World): WorkforceKitOptions {
  return {
    store: createMemoryStore(world.seed),
    auth: createJwtVerifier({ hs256Secret: SECRET }),
    validateResponses: true,
    logger: silent,
  };
}
