// Test support: the records a host app's router serves, and tokens for it.
import type { Employee, Restaurant, SeedRecords, Shift } from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  seedRecords,
} from '@workforce-kit/core/testing';
import { type JWTPayload, SignJWT } from 'jose';

export const SECRET = 'workforce-kit-test-secret-0123456789abcdef';
export const ALL_SCOPES = 'labor.employees:write labor.shifts:write restaurants:read';

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
