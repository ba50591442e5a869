import { type Guid, parseGuid } from '@workforce-kit/core';
import type { Result } from 'neverthrow';
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

/** Who a request speaks for, or the problem that answers it. */
type Authentication = Principal | { readonly problem: ProblemOccurrence };

/** The 401 of a request without a bearer token. */
export const NO_TOKEN: ProblemOccurrence = invalidToken('The request has no bearer token');
const UNAVAILABLE: Authentication = {
  problem: {
    code: 'AUTH_UNAVAILABLE',
    detail: 'The access token cannot be verified right now. Retry later.',
    headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
  },
};

/**
 * The verifier's answer as the request's authentication: 401 without a valid token (503 when the
 * verifier's keys cannot be had), 403 without the operation's scope; otherwise who the token
 * speaks for.
 */
function authenticated(
  verified: Result<Principal, TokenRejected | VerifierUnavailable>,
  scope: string,
  request: LogSource,
): Authentication {
  if (verified.isErr()) {
    const failure = verified.error;
    if (failure.type === 'TokenRejected') return { problem: invalidToken(failure.description) };
    request.log.error({ err: failure.cause }, 'token verification unavailable');
    return UNAVAILABLE;
  }
  if (!verified.value.scopes.has(scope)) {
    return {
      problem: {
        code: 'INSUFFICIENT_SCOPE',
        detail: `This operation needs the scope ${scope}.`,
        headers: {
          'WWW-Authenticate': challenge(
            'insufficient_scope',
            `The operation needs ${scope}`,
            scope,
          ),
        },
      },
    };
  }
  return verified.value;
}

/** The restaurant a request acts for, as far as the token allows it. */
export interface Permitted {
  /**
   * The context restaurant, parsed from its header (once: the use case takes it); `undefined`
   * when the header is missing or not a GUID, and then validation answers the request 400.
   */
  readonly restaurant: Guid | undefined;
  /** What the rate limits count the request against: the restaurant, else the client's address. */
  readonly rateLimitKey: string;
  readonly problem?: undefined;
}

/** The restaurant a request acts for, or the problem that answers it (401, 403, 503). */
export type Permission = Permitted | { readonly problem: ProblemOccurrence };

/**
 * Whether the token may act for the context restaurant the request names (its header parsed by
 * the core's `parseGuid`): 403 `RESTAURANT_NOT_PERMITTED` when it may not. A request that names no
 * usable restaurant is let on (validation answers it with a 400), counted against the client's
 * address.
 *
 * @param context - the `Platform-Restaurant-External-ID` header as sent
 * @param address - the client's address, for the rate limits of a request without a context
 */
function permitRestaurant(
  principal: Principal,
  context: string | string[] | undefined,
  address: string | undefined,
): Permission {
  const parsed = typeof context === 'string' ? parseGuid(context, RESTAURANT_HEADER) : undefined;
  if (parsed === undefined || parsed.isErr()) {
    return { restaurant: undefined, rateLimitKey: `ip:${address ?? 'unknown'}` };
  }
  const restaurant = parsed.value;
  const { restaurants } = principal;
  if (restaurants !== 'all' && !restaurants.has(restaurant)) {
    return {
      problem: {
        code: 'RESTAURANT_NOT_PERMITTED',
        detail: `The access token may not act for restaurant ${restaurant}.`,
        headers: {
          'WWW-Authenticate': challenge(
            'insufficient_scope',
            'The token may not act for this restaurant',
          ),
        },
      },
    };
  }
  return { restaurant, rateLimitKey: `restaurant:${restaurant}` };
}

/**
 * The authorization of an operation's request, in the contract's order, given the verifier's
 * answer on its bearer token (a request without one is {@link NO_TOKEN}): 401 for a token refused,
 * 503 when the verifier's keys cannot be had, 403 without the operation's scope; then 403
 * `RESTAURANT_NOT_PERMITTED` for a context restaurant the token may not act for. Otherwise the
 * restaurant it acts for (its header parsed, the one time it is) and the key its rate limits count
 * it against. A request that names no usable restaurant is let on (validation answers it with a
 * 400), counted against the client's address.
 *
 * @param verified - the verifier's answer on the request's token
 * @param scope - the scope the operation requires
 * @param restaurantContext - the `Platform-Restaurant-External-ID` header as sent (see
 *   {@link RESTAURANT_HEADER})
 * @param address - the client's address, for the rate limits of a request without a context: the
 *   socket's, not one taken from a header the client may set
 * @param request - where a verifier that cannot be reached is logged
 * @example
 * ```ts
 * const token = bearerToken(req.headers.authorization);
 * const permission = token === undefined
 *   ? { problem: NO_TOKEN }
 *   : authorization(await verifier.verify(token), operation.scope, req.headers[RESTAURANT_HEADER], req.socket.remoteAddress, { log });
 * ```
 */
export function authorization(
  verified: Result<Principal, TokenRejected | VerifierUnavailable>,
  scope: string,
  restaurantContext: string | string[] | undefined,
  address: string | undefined,
  request: LogSource,
): Permission {
  const authentication = authenticated(verified, scope, request);
  if ('problem' in authentication) return authentication;
  return permitRestaurant(authentication, restaurantContext, address);
}
