/**
 * The workforce-kit API as a Fastify 5 plugin: `app.register(workforceKit, options)` mounts the
 * operations of the OpenAPI contract, answered by the API's one request pipeline, over any store that implements `@workforce-kit/core`'s ports, with the same options, problem
 * details, headers and statuses as the Express router. The HTTP rules themselves live in
 * `@workforce-kit/http`; this package is the Fastify glue, and re-exports what a host needs.
 *
 * @packageDocumentation
 */
export {
  type AccessTokenVerifier,
  type ApiStore,
  createJwtVerifier,
  type JwtKeySource,
  type JwtVerifierOptions,
  type Logger,
  type MetricsOptions,
  type Principal,
  type ProblemOccurrence,
  type RateLimitOptions,
  type RateLimitWindow,
  type TokenRejected,
  type TokenRejectedReason,
  type VerifierUnavailable,
  type WindowCount,
  type WindowCounter,
} from '@workforce-kit/http';
export { problemErrorHandler, requestIdOf, requestIds, sendProblem } from './host-helpers.js';
export {
  type FrameworkErrorsHandler,
  frameworkErrors,
  type WorkforceKitOptions,
  workforceKit,
} from './workforce-kit-plugin.js';
