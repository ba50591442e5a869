/**
 * The workforce-kit API as Express 5 middleware: `createRouter` mounts the operations of the
 * OpenAPI contract, validated, over any store that implements `@workforce-kit/core`'s ports, with
 * OAuth 2.0 bearer authentication (`createJwtVerifier`, or your own verifier), problem-details
 * errors, request ids, rate limits and a request timeout. The HTTP rules themselves live in
 * `@workforce-kit/http`; this package is the Express glue, and re-exports what a host needs.
 *
 * @packageDocumentation
 */
export {
  type AccessTokenVerifier,
  API_DEFAULTS,
  type ApiStore,
  createJwtVerifier,
  type JwtKeySource,
  type JwtVerifierOptions,
  type Logger,
  type MetricsOptions,
  PROBLEM_TYPE_BASE,
  type Principal,
  type Problem,
  type ProblemCode,
  type ProblemOccurrence,
  type RateLimitOptions,
  type RateLimitWindow,
  type TokenRejected,
  type TokenRejectedReason,
  toEmployeeBody,
  toRestaurantBody,
  toShiftBody,
  type VerifierUnavailable,
  type WindowCount,
  type WindowCounter,
} from '@workforce-kit/http';
export { createRouter, type RouterOptions, type WorkforceRouter } from './create-router.js';
export { type ProblemHandlerOptions, problemHandler, sendProblem } from './problem-details.js';
export { requestIds } from './request-id.js';
