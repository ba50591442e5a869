import { isGuid } from '@workforce-kit/core';
import type { RequestHandler } from 'express';
import { writeProblem } from '../problem-details.js';
import { requestState } from '../request-state.js';
import { RESTAURANT_HEADER } from '../restaurant-context.js';
import { RETRY_AFTER_SECONDS } from '../to-problem.js';
import type { AccessTokenVerifier } from './access-token.js';
import { bearerToken, challenge } from './bearer.js';

function invalidToken(description: string) {
  return {
    code: 'INVALID_TOKEN' as const,
    detail: `${description}.`,
    headers: { 'WWW-Authenticate': challenge('invalid_token', description) },
  };
}

/**
 * The bearer check of an operation: 401 without a valid token (503 when the verifier's keys
 * cannot be had), 403 without the operation's scope; otherwise the principal is kept for the
 * next steps.
 */
export const authenticate =
  (verifier: AccessTokenVerifier, scope: string): RequestHandler =>
  (req, res, next) => {
    const state = requestState(res);
    const token = bearerToken(req.headers.authorization);
    if (token === undefined) {
      writeProblem(res, state.requestId, invalidToken('The request has no bearer token'));
      return;
    }
    verifier.verify(token).then(
      (result) => {
        if (result.isErr()) {
          const failure = result.error;
          if (failure.type === 'TokenRejected') {
            writeProblem(res, state.requestId, invalidToken(failure.description));
          } else {
            state.log.error({ err: failure.cause }, 'token verification unavailable');
            writeProblem(res, state.requestId, {
              code: 'AUTH_UNAVAILABLE',
              detail: 'The access token cannot be verified right now. Retry later.',
              headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) },
            });
          }
          return;
        }
        const principal = result.value;
        if (!principal.scopes.has(scope)) {
          writeProblem(res, state.requestId, {
            code: 'INSUFFICIENT_SCOPE',
            detail: `This operation needs the scope ${scope}.`,
            headers: {
              'WWW-Authenticate': challenge(
                'insufficient_scope',
                `The operation needs ${scope}`,
                scope,
              ),
            },
          });
          return;
        }
        state.principal = principal;
        next();
      },
      (error: unknown) => next(error),
    );
  };

/** 403 when the token may not act for the context restaurant; its key for the rate limits. */
export const permitRestaurant: RequestHandler = (req, res, next) => {
  const state = requestState(res);
  const context = req.headers[RESTAURANT_HEADER];
  if (typeof context === 'string' && isGuid(context)) {
    const guid = context.toLowerCase();
    const restaurants = state.principal?.restaurants;
    if (restaurants !== 'all' && !restaurants?.has(guid)) {
      writeProblem(res, state.requestId, {
        code: 'RESTAURANT_NOT_PERMITTED',
        detail: `The access token may not act for restaurant ${guid}.`,
        headers: {
          'WWW-Authenticate': challenge(
            'insufficient_scope',
            'The token may not act for this restaurant',
          ),
        },
      });
      return;
    }
    state.rateLimitKey = `restaurant:${guid}`;
  }
  next();
};
