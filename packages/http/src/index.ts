/**
 * The HTTP edge of workforce-kit that belongs to no web framework, as a host uses it: the options
 * every adapter takes (`ApiOptions`), bearer-token verification (`createJwtVerifier`, or your own
 * `AccessTokenVerifier`), rate-limit and metrics options, problem details, and the wire form of
 * records and webhooks. The adapters (`@workforce-kit/express-adapter`,
 * `@workforce-kit/fastify-adapter`, `@workforce-kit/node-adapter`) re-export what their users
 * need; what an adapter author needs (the request pipeline) is `@workforce-kit/http/adapter`.
 *
 * @packageDocumentation
 */

export type {
  RateLimitWindow,
  WindowCount,
  WindowCounter,
  WindowDecision,
} from '@workforce-kit/core';
export { API_DEFAULTS, type ApiOptions, type ApiStore } from './api.js';
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
export type { MetricsOptions } from './http-metrics.js';
export type { Logger } from './logger.js';
export {
  PROBLEM_TYPE_BASE,
  type Problem,
  type ProblemCode,
  type ProblemFieldError,
  type ProblemOccurrence,
} from './problems.js';
export { RATE_LIMIT_DEFAULTS, type RateLimitOptions } from './rate-limit.js';
export {
  toEmployeeBody,
  toRestaurantBody,
  toShiftBody,
  toWebhookBody,
  WEBHOOK_TYPES,
  type WebhookBody,
} from './wire-bodies.js';
