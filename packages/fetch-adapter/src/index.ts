/**
 * The workforce-kit API as a fetch handler: `createFetchHandler` answers a web `Request` with a
 * `Response`, the operations of the OpenAPI contract, validated, over any store that implements
 * `@workforce-kit/core`'s ports: in Hono, a Next.js route handler, `Bun.serve`, `Deno.serve`, or in
 * process from a test. The HTTP rules themselves live in `@workforce-kit/http`; this package is
 * the glue between them and the web's `Request` and `Response`, and re-exports what a host needs.
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
  createFetchHandler,
  type FetchHandler,
  type FetchHandlerOptions,
} from './create-fetch-handler.js';
