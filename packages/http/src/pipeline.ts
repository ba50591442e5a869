/**
 * The request pipeline of the API, whatever the web framework: a request's head and body in, its
 * answer (status, headers, body) out. Routing finds the operation and parses the URL; then
 * `STEPS`, in order, run by a `StepDriver`, answer it, each taking what the one before it found
 * out (request-stages.ts). docs/architecture.md ("The steps and the driver") shows the list and
 * says how to add a step.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type MaybeAsync, type RecordedEvent, whenReady } from '@workforce-kit/core';
import type { Result } from 'neverthrow';
import { AnswerHeaders } from './answer-headers.js';
import type {
  AccessTokenVerifier,
  Principal,
  TokenRejected,
  VerifierUnavailable,
} from './auth/access-token.js';
import { authorization, contextRestaurant, NO_TOKEN, RESTAURANT_HEADER } from './auth/authorize.js';
import { bearerToken } from './auth/bearer.js';
import { type JsonBody, readJsonBody, type UnreadBody } from './json-body.js';
import type { Logger, LogSource } from './logger.js';
import { isJsonMediaType } from './media-type.js';
import type { OperationResult, OperationRunner } from './operation-runner.js';
import {
  domainProblem,
  logDomainError,
  type ProblemOccurrence,
  validationProblem,
} from './problems.js';
import { type RateLimitDecision, type RateLimiter, rateLimitKey } from './rate-limit.js';
import {
  AuthorizedRequest,
  LimitedRequest,
  RequestWithBody,
  RoutedRequest,
  ValidRequest,
} from './request-stages.js';
import { type Answer, RequestState, type SharedParts } from './request-state.js';
import type { RequestValidator } from './request-validation.js';
import type { ResponseValidator } from './response-validation.js';
import type { RouteTable } from './route-table.js';
import { StepDriver, Steps } from './step-driver.js';
import type { AnsweredResponse, Telemetry } from './telemetry.js';

/** A request as an adapter reads it from its framework. */
export interface ApiRequest {
  readonly method: string;
  /** The path and query string as sent, relative to where the API is mounted. */
  readonly url: string;
  /**
   * The path and query string as the client sent them, mount path included: a problem's
   * `instance` and the request's log line. @default url
   */
  readonly originalUrl?: string;
  /** The headers, names in lower case (as Node gives them). */
  readonly headers: IncomingHttpHeaders;
  /** The client's address: the socket's, not one a header claims (the rate limits count it). */
  readonly address: string | undefined;
  /** The id the host already gave the request (its own request-id middleware), if any. */
  readonly requestId?: string | undefined;
  /**
   * The body: the request's stream, not yet read (Node's `IncomingMessage`, or a web `Request`,
   * whose `body` stream is touched only then), read only for an operation that takes one once its
   * head passed; or what a body parser of the host already made of it.
   */
  readonly body: UnreadBody | { readonly parsed: unknown };
}

/** The answer an adapter writes: status, headers, body (JSON text; HEAD's is dropped by Node). */
export interface ApiAnswer {
  readonly status: number;
  /**
   * The headers as Node's `writeHead` takes them, names and values in one flat list
   * (`['Content-Type', 'application/json; charset=utf-8', 'X-Request-Id', '…', …]`), each name
   * once: cheaper to make and to write than an object of as many keys.
   */
  readonly headers: string[];
  readonly body: string;
  /**
   * For the adapter to call once the response has closed, when the API observes its requests
   * (metrics, spans, the request log line): `res.once('close', () => answer.closed?.(res))`. Call
   * it as a method of the answer (it may be one).
   */
  readonly closed: ((response: AnsweredResponse) => void) | undefined;
}

/**
 * An answer now, or later (a `MaybeAsync` whose later is a promise that never rejects): a request
 * whose every step is at hand is answered at once; one that waits on something (a token to verify,
 * a body, a database) is answered by a promise. The adapter writes it now, or when the promise
 * resolves: `isThenable(answering)` tells which.
 */
export type Answering = ApiAnswer | Promise<ApiAnswer>;

/**
 * The pipeline: the answer to a request (now, or a promise of it: {@link Answering}), or
 * `undefined` when its path is not the API's (the host answers it). A promised answer never
 * rejects: an unexpected failure is a logged 500, and a request not answered within the timeout
 * is answered 503 `REQUEST_TIMEOUT` (its change, if it had not started, never starts).
 */
export type Pipeline = (request: ApiRequest) => Answering | undefined;

/** What the pipeline is made of: the parts {@link createApi} builds once from the options. */
export interface PipelineParts {
  readonly route: RouteTable;
  readonly logger: Logger;
  readonly logRequests: boolean;
  /** The host's headers on every answer (`ApiOptions.responseHeaders`). */
  readonly responseHeaders: Readonly<Record<string, string>>;
  readonly verifier: AccessTokenVerifier;
  readonly rateLimiter: RateLimiter | undefined;
  readonly bodyLimitBytes: number;
  readonly requestTimeoutMs: number;
  readonly requestValidators: ReadonlyMap<string, RequestValidator>;
  readonly responseValidator: ResponseValidator | undefined;
  readonly run: OperationRunner;
  readonly telemetry: Telemetry | undefined;
  /** Hands the events of a committed change to `onEvent`, without waiting. */
  readonly emit: (events: readonly RecordedEvent[], request: LogSource) => void;
}

type Verified = Result<Principal, TokenRejected | VerifierUnavailable>;

const NOT_FOUND: ProblemOccurrence = { code: 'NOT_FOUND', detail: 'No operation has this path.' };
const UNSUPPORTED_MEDIA_TYPE: ProblemOccurrence = {
  code: 'UNSUPPORTED_MEDIA_TYPE',
  detail: 'Content-Type must be application/json.',
};

/** The bearer token and the restaurant it may act for, decided in auth/authorize.ts. */
export function authorize(request: RoutedRequest): MaybeAsync<AuthorizedRequest | Answer> {
  const token = bearerToken(request.incoming.headers.authorization);
  if (token === undefined) return request.problem(NO_TOKEN);
  return whenReady(request.shared.parts.verifier.verify(token), permit, request);
}

function permit(verified: Verified, request: RoutedRequest): AuthorizedRequest | Answer {
  const { headers, address } = request.incoming;
  const restaurant = contextRestaurant(headers[RESTAURANT_HEADER]);
  const permission = authorization(verified, request.operation.scope, restaurant, request);
  if (permission.isErr()) return request.problem(permission.error);
  return new AuthorizedRequest(request, restaurant, rateLimitKey(restaurant, address));
}

/** The rate limits of the restaurant (or the client's address), decided in rate-limit.ts. */
export function limitRate(request: AuthorizedRequest): MaybeAsync<LimitedRequest | Answer> {
  const limiter = request.parts.rateLimiter;
  if (limiter === undefined) return new LimitedRequest(request, undefined);
  return whenReady(limiter.check(request), limited, request);
}

function limited(
  decision: RateLimitDecision | undefined,
  request: AuthorizedRequest,
): LimitedRequest | Answer {
  const limitedRequest = new LimitedRequest(request, decision);
  const refused = decision?.refusal();
  return refused === undefined ? limitedRequest : limitedRequest.problem(refused);
}

/** The media type of an operation that takes a body: JSON in UTF-8. */
export function checkMediaType(request: LimitedRequest): LimitedRequest | Answer {
  const { operation, incoming } = request.routed;
  if (operation.bodySchema === undefined) return request;
  if (isJsonMediaType(incoming.headers['content-type'])) return request;
  return request.problem(UNSUPPORTED_MEDIA_TYPE);
}

/** The body of an operation that takes one: read, inflated, parsed (json-body.ts). */
export function readBody(request: LimitedRequest): MaybeAsync<RequestWithBody | Answer> {
  const { operation, incoming } = request.routed;
  if (operation.bodySchema === undefined) return new RequestWithBody(request, undefined);
  const { headers, body } = incoming;
  if ('parsed' in body) return new RequestWithBody(request, body.parsed);
  const read = readJsonBody(body, headers, request.parts.bodyLimitBytes);
  return whenReady(read, bodyRead, request);
}

function bodyRead(read: JsonBody, request: LimitedRequest): RequestWithBody | Answer {
  return read.isErr() ? request.problem(read.error) : new RequestWithBody(request, read.value);
}

/**
 * The inputs: a constrained path parameter that does not percent-decode, then the spec (the
 * identifiers parsed, the restaurant's as authorized).
 */
export function validate(request: RequestWithBody): ValidRequest | Answer {
  const { route, incoming } = request.routed;
  if (route.undecodable !== undefined) {
    const input = {
      path: `/params/${route.undecodable}`,
      message: 'is not valid percent-encoding',
      missing: false,
    };
    return request.problem(validationProblem([input]));
  }
  const check = request.parts.requestValidators.get(route.operation.id)?.(
    route.params,
    incoming.headers,
    route.query,
    request.body,
    request.restaurant,
  );
  if (check === undefined) return request.problem(validationProblem([]));
  if (check.isErr()) return request.problem(validationProblem(check.error));
  return new ValidRequest(request, check.value);
}

/** The use case over the store (operation-runner.ts), given the parsed inputs. */
export function runUseCase(request: ValidRequest): MaybeAsync<Answer> {
  const outcome = request.parts.run(request.routed.operation.id, request);
  return whenReady(outcome, respond, request);
}

function respond(result: OperationResult, request: ValidRequest): Answer {
  if (result.isErr()) {
    logDomainError(result.error, request.log);
    return request.problem(domainProblem(result.error));
  }
  const answered = result.value;
  if (answered.events.length > 0) request.parts.emit(answered.events, request);
  return request.ok(answered);
}

/**
 * The steps of an operation's request, in order: each takes what the one before it found out
 * and answers the request or finds out more, so that a step put before what it takes does not
 * compile. No body is read before the head's steps (the token, the restaurant, the rate limits,
 * the media type) pass.
 */
const STEPS = Steps.from<RoutedRequest>()
  .and(authorize) // the bearer token (401, 503), its scope (403), the restaurant it may act for (403)
  .and(limitRate) // the rate limits (429); their headers on every answer from here on
  .and(checkMediaType) // a body's media type (415)
  .and(readBody) // the body (413, 400)
  .and(validate) // the inputs: path encoding, then the spec (400)
  .and(runUseCase); // the use case: its problem, or its events handed on and the 200

/**
 * Makes the pipeline from the API's parts, once.
 *
 * @example
 * ```ts
 * const answering = api.handle({ method: req.method, url: req.url, headers: req.headers, address: req.socket.remoteAddress, body: req });
 * if (answering === undefined) next();
 * else if (isThenable(answering)) answering.then((answer) => writeAnswer(res, answer));
 * else writeAnswer(res, answering);
 * ```
 */
export function createPipeline(parts: PipelineParts): Pipeline {
  const shared: SharedParts = { parts, headers: new AnswerHeaders(parts.responseHeaders) };
  const driver = new StepDriver(STEPS, parts.requestTimeoutMs);
  return (request) => {
    const match = parts.route(request.method, request.url);
    if (match === undefined) return undefined;
    if (match.kind !== 'operation') {
      return new RequestState(shared, request, undefined).problem(
        match.kind === 'not-found'
          ? NOT_FOUND
          : {
              code: 'METHOD_NOT_ALLOWED',
              detail: `${request.method} is not supported here; use ${match.allow}.`,
              headers: { Allow: match.allow },
            },
      );
    }
    return driver.run(new RoutedRequest(shared, request, match));
  };
}
