/**
 * The workforce-kit API as a NestJS module: `WorkforceKitModule.forRoot(options)` or
 * `forRootAsync({ imports, inject, useFactory })` serves the operations of the OpenAPI contract,
 * validated, over any store that implements `@workforce-kit/core`'s ports, with OAuth 2.0 bearer
 * authentication (`createJwtVerifier`, or your own verifier), problem-details errors, request
 * ids, rate limits and a request timeout, on Nest's Express or Fastify platform. The HTTP rules
 * themselves live in `@workforce-kit/http`; this package is the Nest glue, and re-exports what a
 * host needs.
 *
 * @packageDocumentation
 */
export {
  type AccessTokenVerifier,
  type ApiOptions,
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
  WorkforceKitModule,
  type WorkforceKitModuleAsyncOptions,
  type WorkforceKitModuleOptions,
} from './workforce-kit-module.js';
