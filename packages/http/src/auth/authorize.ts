import { type Guid, parseGuid } from '@workforce-kit/core';
import type { Logger } from '../logger.js';
import { type ProblemOccurrence, RETRY_AFTER_SECONDS } from '../problems.js';
import type { AccessTokenVerifier, Principal } from './access-token.js';
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
type Authentication =
  | { readonly principal: Principal; readonly problem?: undefined }
  | { readonly principal?: undefined; readonly problem: ProblemOccurrence };

/**
 * The bearer check of an operation: 401 without a valid token (503 when the verifier's keys
 * cannot be had), 403 without the operation's scope; otherwise who the token speaks for.
 *
 * @param authorization - the request's `Authorization` header
 * @param scope - the scope the operation requires
 */
async function authenticate(
  verifier: AccessTokenVerifier,
  authorization: string | undefined,
  scope: string,
  log: Logger,
): Promise<Authentication> {
  const token = bearerToken(authorization);
  if (token === undefined) return { problem: invalidToken('The request has no bearer token') };
  const result = await verifier.verify(token);
  if (result.isErr()) {
    const failure = result.error;
    if (failure.type === 'TokenRejected') return { problem: invalidToken(failure.description) };
    log.error({ err: failure.cause }, 'token verification unavailable');
    return {
      problem: {
        code: 'AUTH_UNAVAILABLE',
        detail: 'The access token cannot be verified right now. Retry later.',
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      },
    };
  }
  if (!result.value.scopes.has(scope)) {
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
  return { principal: result.value };
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

/** What {@link authorizeRequest} reads of a request, whatever the web framework. */
export interface AuthorizationRequest {
  /** The `Authorization` header. */
  readonly authorization: string | undefined;
  /** The `Platform-Restaurant-External-ID` header as sent (see {@link RESTAURANT_HEADER}). */
  readonly restaurantContext: string | string[] | undefined;
  /**
   * The client's address, for the rate limits of a request without a context: the socket's, not
   * one taken from a header the client may set.
   */
  readonly address: string | undefined;
}

/**
 * The authorization of an operation's request, in the contract's order: the bearer token (401
 * without a valid one, 503 when the verifier's keys cannot be had, 403 without the operation's
 * scope), then the context restaurant the token may act for (403 `RESTAURANT_NOT_PERMITTED`).
 * The problem that answers the request, or the restaurant it acts for (its header parsed, the
 * one time it is) and the key its rate limits count it against. A request that names no usable
 * restaurant is let on (validation answers it with a 400), counted against the client's address.
 *
 * @param request - the request's `Authorization` and restaurant headers, and the client's address
 * @param scope - the scope the operation requires
 * @param log - the request's logger: a verifier that cannot be reached is logged there
 * @example
 * ```ts
 * const permission = await authorizeRequest(
 *   api.verifier,
 *   {
 *     authorization: req.headers.authorization,
 *     restaurantContext: req.headers[RESTAURANT_HEADER],
 *     address: req.socket.remoteAddress,
 *   },
 *   operation.scope,
 *   log,
 * );
 * if (permission.problem !== undefined) return answer(permission.problem);
 * const decision = await api.rateLimiter?.check(permission.rateLimitKey, log);
 * ```
 */
export async function authorizeRequest(
  verifier: AccessTokenVerifier,
  request: AuthorizationRequest,
  scope: string,
  log: Logger,
): Promise<Permission> {
  const authentication = await authenticate(verifier, request.authorization, scope, log);
  if (authentication.problem !== undefined) return { problem: authentication.problem };
  return permitRestaurant(authentication.principal, request.restaurantContext, request.address);
}
