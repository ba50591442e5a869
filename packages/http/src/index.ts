/**
 * The HTTP edge of workforce-kit that belongs to no web framework: the operations of the spec,
 * request validation compiled from it, bearer-token verification and permissions, request ids,
 * rate-limit decisions, problem details and the wire form of records, as plain functions over
 * plain request data. `@workforce-kit/express-adapter` and `@workforce-kit/fastify-adapter` are
 * glue over it; a third framework would be too.
 *
 * @packageDocumentation
 */
export { API_DEFAULTS, type Api, type ApiOptions, type ApiStore, createApi } from './api.js';
export type {
  AccessTokenVerifier,
  Principal,
  TokenRejected,
  TokenRejectedReason,
  VerifierUnavailable,
} from './auth/access-token.js';
export {
  type AuthorizationRequest,
  authorizeRequest,
  type Permission,
  RESTAURANT_HEADER,
} from './auth/authorize.js';
export {
  createJwtVerifier,
  type JwtKeySource,
  type JwtVerifierOptions,
} from './auth/jwt-verifier.js';
export type { Logger } from './logger.js';
export { isJsonMediaType } from './media-type.js';
export type { OperationInput, OperationResult, OperationRunner } from './operation-runner.js';
export type { ApiOperation, ApiPath, OperationId, OperationMethod } from './operations.js';
export type { ApiAnswer, ApiRequest, Pipeline } from './pipeline.js';
export {
  domainProblem,
  IDENTIFIER_MESSAGES,
  INTERNAL_ERROR,
  type InvalidInput,
  logDomainError,
  PROBLEM_TYPE_BASE,
  type Problem,
  type ProblemCode,
  type ProblemFieldError,
  type ProblemOccurrence,
  problemBody,
  problemStatus,
  RETRY_AFTER_SECONDS,
  validationProblem,
} from './problems.js';
export {
  boundedMemoryCounter,
  RATE_LIMIT_DEFAULTS,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitOptions,
  type RateLimitWindow,
  type WindowCount,
  type WindowCounter,
} from './rate-limit.js';
export { redactedUrl } from './redacted-url.js';
export { RequestDeadlines } from './request-deadlines.js';
export { requestIdFrom } from './request-id.js';
export { RequestLogger } from './request-logger.js';
export {
  createSchemaCompiler,
  type PartSchema,
  type RequestCheck,
  type RequestParts,
  type RequestValidator,
  requestSchemas,
} from './request-validation.js';
export type { ResponseValidator } from './response-validation.js';
export type {
  AnsweredResponse,
  MetricsOptions,
  RequestTelemetry,
  Telemetry,
} from './telemetry.js';
export {
  toEmployeeBody,
  toRestaurantBody,
  toShiftBody,
  toWebhookBody,
  WEBHOOK_TYPES,
  type WebhookBody,
} from './wire-bodies.js';
export { writeAnswer } from './write-answer.js';
