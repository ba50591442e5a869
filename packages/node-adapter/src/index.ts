/**
 * The workforce-kit API as a `node:http` request handler: `createRequestHandler` serves the
 * operations of the OpenAPI contract, validated, over any store that implements
 * `@workforce-kit/core`'s ports, in `http.createServer` or any framework that takes a
 * `(req, res, next)` handler. The HTTP rules themselves live in `@workforce-kit/http`; this
 * package is the node:http glue, and re-exports what a host needs.
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
export {
  createRequestHandler,
  type RequestHandlerOptions,
  type WorkforceRequestHandler,
} from './create-request-handler.js';
