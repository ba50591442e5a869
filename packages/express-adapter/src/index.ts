/**
 * The workforce-kit API as Express 5 middleware: `createRouter` mounts the operations of the
 * OpenAPI contract, validated, over any store that implements `@workforce-kit/core`'s ports, with
 * OAuth 2.0 bearer authentication (`createJwtVerifier`, or your own verifier), problem-details
 * errors, request ids, rate limits and a request timeout.
 *
 * @packageDocumentation
 */
export type {
  AccessTokenVerifier,
  Principal,
  TokenRejected,
  TokenRejectedReason,
  VerifierUnavailable,
} from './auth/access-token.js';
export {
  createJwtVerifier,
  type JwtKeySource,
  type JwtVerifierOptions,
} from './auth/jwt-verifier.js';
export { createRouter, type WorkforceRouter } from './create-router.js';
export {
  DEFAULTS,
  type RateLimitOptions,
  type RateLimitWindow,
  type RouterOptions,
  type RouterStore,
} from './options.js';
export {
  PROBLEM_TYPE_BASE,
  type Problem,
  type ProblemCode,
  type ProblemHandlerOptions,
  type ProblemOccurrence,
  problemHandler,
  sendProblem,
} from './problem-details.js';
export { requestIds } from './request-id.js';
export { toEmployeeBody, toRestaurantBody, toShiftBody } from './to-wire.js';
