/**
 * Test support for hosts of the API, whatever their web framework: access tokens signed with a
 * test secret, and the options of an API over a memory store that takes them.
 *
 * @packageDocumentation
 */
import { createMemoryStore, type SeedRecords } from '@workforce-kit/core';
import { openapiDocument } from '@workforce-kit/types';
import { type JWTPayload, SignJWT } from 'jose';
import { pino } from 'pino';
import type { ApiOptions } from '../api.js';
import { createJwtVerifier } from '../auth/jwt-verifier.js';
import { readOperations } from '../operations.js';

/** The HS256 secret of {@link tokenFor} and {@link testApiOptions}. */
export const TEST_SECRET = 'workforce-kit-test-secret-0123456789abcdef';

/** Every scope an operation of the spec requires, space-separated (a token's `scope` claim). */
export const ALL_SCOPES: string = [
  ...new Set(readOperations(openapiDocument).map((operation) => operation.scope)),
].join(' ');

/**
 * Signs an HS256 access token with {@link TEST_SECRET} (or `secret`): every scope, for
 * `restaurants`, valid 5 minutes (or `expiresIn`); `claims` add to or replace these.
 *
 * @example
 * ```ts
 * const token = await tokenFor([restaurant.guid]);
 * const readOnly = await tokenFor('*', { scope: 'restaurants:read' });
 * ```
 */
export function tokenFor(
  restaurants: readonly string[] | '*',
  claims: JWTPayload & { scope?: string } = {},
  { secret = TEST_SECRET, expiresIn = '5m' as string | number } = {},
): Promise<string> {
  return new SignJWT({ scope: ALL_SCOPES, restaurants, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}

/**
 * The options of an API over a memory store of `seed` that takes the tokens of {@link tokenFor},
 * validates its responses against the spec (a 500 when one does not match) and logs nothing;
 * `overrides` replace any of them.
 *
 * @example
 * ```ts
 * import { aWorld } from '@workforce-kit/core/testing';
 *
 * const api = createApi(testApiOptions(aWorld().seed, { rateLimit: false }));
 * ```
 */
export function testApiOptions(seed: SeedRecords, overrides: Partial<ApiOptions> = {}): ApiOptions {
  return {
    store: createMemoryStore(seed),
    auth: createJwtVerifier({ hs256Secret: TEST_SECRET }),
    validateResponses: true,
    logger: pino({ level: 'silent' }),
    ...overrides,
  };
}

export { RESTAURANT_HEADER } from '../auth/authorize.js';
