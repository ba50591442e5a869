import { type Guid, type MaybeAsync, parseGuid, whenReady } from '@workforce-kit/core';
import type { Result } from 'neverthrow';
import type { Logger } from '../logger.js';
import { type ProblemOccurrence, RETRY_AFTER_SECONDS } from '../problems.js';
import type {
  AccessTokenVerifier,
  Principal,
  TokenRejected,
  VerifierUnavailable,
} from './access-token.js';
import { bearerToken, challenge } from './bearer.js';

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

const NO_TOKEN: Authentication = { problem: invalidToken('The request has no bearer token') };
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
  log: Logger,
): Authentication {
  if (verified.isErr()) {
    const failure = verified.error;
    if (failure.type === 'TokenRejected') return { problem: invalidToken(failure.description) };
    log.error({ err: failure.cause }, 'token verification unavailable');
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

/** The restaurant a request acts for, as far as the token allows it, or the 403 that answers it. */
export type Permission =
  | {
      /**
       * The context restaurant, parsed from its header (once: the use case takes it); `undefined`
       * when the header is missing or not a GUID, and then validation answers the request 400.
       */
      readonly restaurant: Guid | undefined;
      /** What the rate limits count the request against: the restaurant, else the client's address. */
      readonly rateLimitKey: string;
      readonly problem?: undefined;
    }
  | { readonly problem: ProblemOccurrence };

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
 * The authorization of an operation's request, in the contract's order: the bearer token (401
 * without a valid one, 503 when the verifier's keys cannot be had, 403 without the operation's
 * scope), then the context restaurant the token may act for (403 `RESTAURANT_NOT_PERMITTED`).
 * The problem that answers the request, or the restaurant it acts for (its header parsed, the
 * one time it is) and the key its rate limits count it against. A request that names no usable
 * restaurant is let on (validation answers it with a 400), counted against the client's address.
 * Decided at once when the verifier answers at once (a token it has verified before), else a
 * promise.
 *
 * @param authorization - the request's `Authorization` header
 * @param restaurantContext - its `Platform-Restaurant-External-ID` header as sent (see
 *   {@link RESTAURANT_HEADER})
 * @param address - the client's address, for the rate limits of a request without a context: the
 *   socket's, not one taken from a header the client may set
 * @param scope - the scope the operation requires
 * @param log - the request's logger: a verifier that cannot be reached is logged there
 * @example
 * ```ts
 * const permission = await authorizeRequest(verifier, req.headers.authorization, req.headers[RESTAURANT_HEADER], req.socket.remoteAddress, operation.scope, log);
 * if (permission.problem !== undefined) return answer(permission.problem);
 * ```
 */
export function authorizeRequest(
  verifier: AccessTokenVerifier,
  authorization: string | undefined,
  restaurantContext: string | string[] | undefined,
  address: string | undefined,
  scope: string,
  log: Logger,
): MaybeAsync<Permission> {
  const token = bearerToken(authorization);
  if (token === undefined) return NO_TOKEN as Permission;
  return whenReady(verifier.verify(token), (verified) =>
    permitted(authenticated(verified, scope, log), restaurantContext, address),
  );
}

/** The permission of an authenticated request, or the problem that refused it. */
function permitted(
  authentication: Authentication,
  restaurantContext: string | string[] | undefined,
  address: string | undefined,
): Permission {
  if ('problem' in authentication) return authentication;
  return permitRestaurant(authentication, restaurantContext, address);
}
