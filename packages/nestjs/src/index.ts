/**
 * The workforce-kit API as a NestJS module (`WorkforceKitModule`), and what a host needs of
 * `@workforce-kit/http` to configure it.
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
export type {
  WorkforceKitModuleAsyncOptions,
  WorkforceKitModuleOptions,
  WorkforceKitOptionsFactory,
} from './module-definition.js';
export { WorkforceKitModule } from './workforce-kit-module.js';
