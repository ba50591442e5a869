import type { Guid } from '@workforce-kit/core';
import { anEmployee, aRestaurant, aShift } from '@workforce-kit/core/testing';
import type { Seed } from '@workforce-kit/seed-file';
import { aClient, aSeed } from '@workforce-kit/seed-file/testing';
import { SignJWT } from 'jose';

/** The HS256 secret the benchmark servers verify and the driver signs with. */
export const BENCH_SECRET = 'workforce-kit-benchmark-secret-0123456789';
/** The `iss` and `aud` of the benchmark's tokens, which every server checks. */
export const BENCH_ISSUER = 'https://identity.bench.invalid/';
export const BENCH_AUDIENCE = 'workforce-kit-bench';
/** The scopes of the benchmark's tokens: every operation's. */
export const BENCH_SCOPES = 'labor.employees:write labor.shifts:write restaurants:read';
/**
 * The reference server's rate limits in the benchmarks: raised so that the load is not refused,
 * and small integers as real limits are (V8 boxes a count past 2^30 in a heap number).
 */
export const BENCH_RATE_LIMITS = {
  RATE_LIMIT_PER_SECOND: '1000000000',
  RATE_LIMIT_PER_15_MIN: '1000000000',
} as const;
/** The reference server's settings in the benchmarks: JWT as AUTH_MODE=jwt has it, limits raised. */
export const BENCH_REFERENCE_SETTINGS = {
  AUTH_MODE: 'jwt',
  AUTH_HS256_SECRET: BENCH_SECRET,
  AUTH_ISSUER: BENCH_ISSUER,
  AUTH_AUDIENCE: BENCH_AUDIENCE,
  ...BENCH_RATE_LIMITS,
} as const;
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

/**
 * The bearer token of the benchmark's load: HS256, the bench's issuer and audience, every scope,
 * the bench restaurant; valid for `hours`.
 */
export function benchToken(hours = 6): Promise<string> {
  return new SignJWT({ scope: BENCH_SCOPES, restaurants: [RESTAURANT_GUID] })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer(BENCH_ISSUER)
    .setAudience(BENCH_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${hours}h`)
    .sign(new TextEncoder().encode(BENCH_SECRET));
}
