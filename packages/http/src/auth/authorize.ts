import { type Guid, parseGuid } from '@workforce-kit/core';
import { err, ok, type Result } from 'neverthrow';
import type { LogSource } from '../logger.js';
import { type ProblemOccurrence, RETRY_AFTER_SECONDS } from '../problems.js';
import type { Principal, TokenRejected, VerifierUnavailable } from './access-token.js';
import { challenge } from './bearer.js';

/** The header that names the context restaurant (Node lower-cases header names). */
export const RESTAURANT_HEADER = 'platform-restaurant-external-id';

function invalidToken(description: string): ProblemOccurrence {
  return {
    code: 'INVALID_TOKEN',
    detail: `${description}.`,
    headers: { 'WWW-Authenticate': challenge('invalid_token', description) },
  };
}

/** The 401 of a request without a bearer token. */
export const NO_TOKEN: ProblemOccurrence = invalidToken('The request has no bearer token');
const UNAVAILABLE: ProblemOccurrence = {
  code: 'AUTH_UNAVAILABLE',
  detail: 'The access token cannot be verified right now. Retry later.',
  headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
};
/** A request the token may make: one value, as it holds nothing of the request's own. */
const PERMITTED: Result<undefined, ProblemOccurrence> = ok(undefined);

/**
 * The context restaurant a request names, parsed by the core's `parseGuid` (once: validation and
 * the use case take it): `undefined` when the header is missing or not a GUID, and then
 * validation answers the request 400.
 *
 * @param header - the `Platform-Restaurant-External-ID` header as sent (see {@link RESTAURANT_HEADER})
 */
export function contextRestaurant(header: string | string[] | undefined): Guid | undefined {
  if (typeof header !== 'string') return undefined;
  const parsed = parseGuid(header, RESTAURANT_HEADER);
  return parsed.isOk() ? parsed.value : undefined;
}

/**
 * Whether a verified token may act for the context restaurant: 403 `RESTAURANT_NOT_PERMITTED` when
 * it may not. A request that names no usable restaurant is let on (validation answers it 400).
 */
function permitRestaurant(
  principal: Principal,
  restaurant: Guid | undefined,
): Result<undefined, ProblemOccurrence> {
  const { restaurants } = principal;
  if (restaurant === undefined || restaurants === 'all' || restaurants.has(restaurant)) {
    return PERMITTED;
  }
  return err({
    code: 'RESTAURANT_NOT_PERMITTED',
    detail: `The access token may not act for restaurant ${restaurant}.`,
    headers: {
      'WWW-Authenticate': challenge(
        'insufficient_scope',
        'The token may not act for this restaurant',
      ),
    },
  });
}

/**
 * The authorization of an operation's request, in the contract's order, given the verifier's
 * answer on its bearer token (a request without one is {@link NO_TOKEN}): 401 for a token refused,
 * 503 when the verifier's keys cannot be had, 403 without the operation's scope; then 403
 * `RESTAURANT_NOT_PERMITTED` for a context restaurant the token may not act for. A request that
 * names no usable restaurant is let on (validation answers it with a 400).
 *
 * @param verified - the verifier's answer on the request's token
 * @param scope - the scope the operation requires
 * @param restaurant - the context restaurant the request names, parsed ({@link contextRestaurant})
 * @param request - where a verifier that cannot be reached is logged
 * @returns `ok` when the token may make the request, else the problem that answers it
 * @example
 * ```ts
 * const token = bearerToken(req.headers.authorization);
 * const restaurant = contextRestaurant(req.headers[RESTAURANT_HEADER]);
 * const permission = token === undefined
 *   ? err(NO_TOKEN)
 *   : authorization(await verifier.verify(token), operation.scope, restaurant, { log });
 * ```
 */
export function authorization(
  verified: Result<Principal, TokenRejected | VerifierUnavailable>,
  scope: string,
  restaurant: Guid | undefined,
  request: LogSource,
): Result<undefined, ProblemOccurrence> {
  if (verified.isErr()) {
    const failure = verified.error;
    if (failure.type === 'TokenRejected') return err(invalidToken(failure.description));
    request.log.error({ err: failure.cause }, 'token verification unavailable');
    return err(UNAVAILABLE);
  }
  if (!verified.value.scopes.has(scope)) {
    return err({
      code: 'INSUFFICIENT_SCOPE',
      detail: `This operation needs the scope ${scope}.`,
      headers: {
        'WWW-Authenticate': challenge('insufficient_scope', `The operation needs ${scope}`, scope),
      },
    });
  }
  return permitRestaurant(verified.value, restaurant);
}
