/**
 * The request pipeline of the API, whatever the web framework: a request's head and body in, its
 * answer (status, headers, body) out. Every adapter (Express, Fastify, node:http) only reads the
 * request from its framework, calls {@link Pipeline}, and writes the answer. A request whose every
 * step is at hand (a cached token, the in-memory rate limits, no body, a store that answers at once)
 * is answered synchronously, without a promise; at the first step that is not, the rest waits for
 * it (`proceed`), and the answer is a promise. Top to bottom:
 *
 * 1. routing: the operation of the method and path (the spec's operation table), or the API's 404
 *    and 405, or `undefined` for a path outside the API (the host's);
 * 2. on the head only: the request id, the response headers, the deadline, the telemetry, the
 *    bearer token (401, 403, 503), the restaurant the token may act for (403), the rate limits
 *    (429) and the media type (415); an unauthenticated body is never read;
 * 3. with the body (413, 400): a path segment that does not percent-decode (400), validation
 *    against the spec (400: the identifiers by the core's parsers, once each, the restaurant's
 *    header by `authorizeRequest`; the rest by ajv), the use case (200, or its problem) given the
 *    parsed identifiers, its events, the answer.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { type Guid, isThenable, type MaybeAsync, type RecordedEvent } from '@workforce-kit/core';
import type { AccessTokenVerifier } from './auth/access-token.js';
import { authorizeRequest, type Permission, RESTAURANT_HEADER } from './auth/authorize.js';
import { type JsonBody, readJsonBody, type UnreadBody } from './json-body.js';
import type { Logger } from './logger.js';
import { isJsonMediaType } from './media-type.js';
import type { OperationResult, OperationRunner } from './operation-runner.js';
import type { ApiOperation } from './operations.js';
import {
  domainProblem,
  INTERNAL_ERROR,
  logDomainError,
  type ProblemOccurrence,
  problemBody,
  RETRY_AFTER_SECONDS,
  validationProblem,
} from './problems.js';
import type { RateLimitDecision, RateLimiter } from './rate-limit.js';
import { redactedUrl } from './redacted-url.js';
import { RequestDeadlines } from './request-deadlines.js';
import { requestIdFrom } from './request-id.js';
import { RequestLogger } from './request-logger.js';
import type { RequestValidator } from './request-validation.js';
import type { ResponseValidator } from './response-validation.js';
import type { RouteTable } from './route-table.js';
import type { AnsweredResponse, RequestTelemetry, Telemetry } from './telemetry.js';

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
 * An answer now, or later: a request whose every step is at hand is answered at once; one that
 * waits on something (a token to verify, a body, a database) is answered by a promise. The
 * adapter writes it now, or when the promise resolves: `isThenable(answering)` tells which.
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
  readonly emit: (events: readonly RecordedEvent[], log: Logger) => void;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';
const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const NO_QUERY: Readonly<Record<string, unknown>> = Object.freeze({});
const NO_BODY: JsonBody = Object.freeze({ value: undefined });
const UNLIMITED: RateLimitDecision = Object.freeze({ headers: NO_HEADERS, refused: undefined });
/** The headers the API sets itself, which the host's `responseHeaders` cannot replace. */
const API_HEADERS: ReadonlySet<string> = new Set([
  'allow',
  'cache-control',
  'connection',
  'content-length',
  'content-type',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  'www-authenticate',
  'x-content-type-options',
  'x-request-id',
]);
/** The rate limits' headers, in the order the limiter gives them (`RateLimitDecision.headers`). */
const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;
const NOT_FOUND: ProblemOccurrence = { code: 'NOT_FOUND', detail: 'No operation has this path.' };
const UNSUPPORTED_MEDIA_TYPE: ProblemOccurrence = {
  code: 'UNSUPPORTED_MEDIA_TYPE',
  detail: 'Content-Type must be application/json.',
};

/**
 * One request in the pipeline, from its route to its answer: what every answer to it carries, what
 * its steps found out so far, and, once it waits on something, the promise of its answer. It logs
 * as the request does (each line with its `requestId`), making that logger only when a line is
 * written.
 */
class Exchange implements Logger {
  /** The restaurant the token may act for (its header parsed), once authorized. */
  restaurant: Guid | undefined;
  /** The `RateLimit-*` headers every answer carries once the limits are counted. */
  limits: Readonly<Record<string, string>> = NO_HEADERS;
  /** Whether it is answered: only a request that waits can be answered twice (its timeout first). */
  answered = false;
  /** The promise of its answer, made when it first waits on a step. */
  waiting: Promise<ApiAnswer> | undefined;
  settle: (answer: ApiAnswer) => void = ignore;
  /** The path parameters, percent-decoded (one that does not decode, as sent). */
  params: Readonly<Record<string, string>> = NO_HEADERS;
  /** A parameter the spec constrains whose segment does not percent-decode: a 400. */
  undecodable: string | undefined;
  #log: RequestLogger | undefined;

  constructor(
    readonly request: ApiRequest,
    readonly requestId: string,
    readonly telemetry: RequestTelemetry | undefined,
    /** The path and query as sent: the log line's (redacted). */
    readonly sent: string,
    /** The path as sent: every problem's `instance`. */
    readonly instance: string,
    private readonly logger: Logger,
    /** When it was taken (`performance.now()`), for the log line; `undefined` when none is written. */
    readonly started: number | undefined,
  ) {}

  /** Whether its end is observed: a log line, metrics or a span. */
  get observed(): boolean {
    return this.started !== undefined || this.telemetry !== undefined;
  }

  /** Its answer's response closed: its telemetry ended, and its log line written. */
  end(response: AnsweredResponse): void {
    this.telemetry?.end(response);
    if (this.started === undefined) return;
    // The line most requests write, built as one literal (RequestLogger would copy it); with a
    // trace's ids only when traced (a spread of none would still make the literal the slow way).
    const path = redactedUrl(this.sent);
    const ms = Math.round(performance.now() - this.started);
    const bindings = this.telemetry?.logBindings;
    const { method } = this.request;
    const { statusCode: status } = response;
    const line =
      bindings === undefined
        ? { requestId: this.requestId, method, path, status, ms }
        : { requestId: this.requestId, ...bindings, method, path, status, ms };
    this.logger.info(line, 'request');
  }

  get log(): RequestLogger {
    this.#log ??= new RequestLogger(this.logger, this.requestId, this.telemetry?.logBindings);
    return this.#log;
  }

  info(details: object, message?: string): void {
    this.log.info(details, message);
  }

  warn(details: object, message?: string): void {
    this.log.warn(details, message);
  }

  error(details: object, message?: string): void {
    this.log.error(details, message);
  }

  child(bindings: Record<string, unknown>): Logger {
    return this.log.child(bindings);
  }
}

function ignore(): void {}

/**
 * The answer of a request whose end is observed: `closed` (a method, so that no function is made
 * per answer) ends its exchange. Adapters call it as `answer.closed?.(response)`.
 */
class ObservedAnswer implements ApiAnswer {
  constructor(
    readonly status: number,
    readonly headers: string[],
    readonly body: string,
    private readonly exchange: Exchange,
  ) {}

  closed(response: AnsweredResponse): void {
    this.exchange.end(response);
  }
}

/** An answer: observed (its `closed` ends the exchange) when the exchange's end is. */
function answerOf(exchange: Exchange, status: number, headers: string[], body: string): ApiAnswer {
  return exchange.observed
    ? new ObservedAnswer(status, headers, body, exchange)
    : { status, headers, body, closed: undefined };
}

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
  const { logger, responseValidator, telemetry, rateLimiter } = parts;
  // What every answer carries, merged once: the host's headers (but those the API sets itself,
  // in any letter case), then the API's; as the flat list an answer's headers start from.
  const everyAnswer: readonly string[] = [
    ...Object.entries(parts.responseHeaders).filter(
      ([name]) => !API_HEADERS.has(name.toLowerCase()),
    ),
    // Answers carry personal data (employees) and are never to be cached or sniffed.
    ['Cache-Control', 'no-store'],
    ['X-Content-Type-Options', 'nosniff'],
  ].flat();
  // The headers of a 200 with the rate limits' three, assembled once: an answer copies the list
  // and sets its own values in their places.
  const okHeaders: readonly string[] = [
    ...everyAnswer,
    'X-Request-Id',
    '',
    ...RATE_LIMIT_HEADERS.flatMap((name) => [name, '']),
    'Content-Type',
    JSON_TYPE,
    'Content-Length',
    '',
  ];
  const okRequestIdAt = everyAnswer.length + 1;
  const okLimitsAt = okRequestIdAt + 2;
  const okLengthAt = okHeaders.length - 1;

  const deadlines = new RequestDeadlines<Exchange>(parts.requestTimeoutMs, (exchange) => {
    exchange.warn({ timeoutMs: parts.requestTimeoutMs }, 'request timed out');
    answerLater(
      exchange,
      problemAnswer(exchange, NO_HEADERS, {
        code: 'REQUEST_TIMEOUT',
        detail: `The request was not answered within ${parts.requestTimeoutMs} ms; a change it asked for may still complete.`,
        // The connection closes after the answer: a body still arriving is not read on.
        headers: { 'Retry-After': String(RETRY_AFTER_SECONDS), Connection: 'close' },
      }),
    );
  });

  /** The headers of every answer (the host's, then the API's), then the answer's own. */
  function headersOf(
    exchange: Exchange,
    limits: Readonly<Record<string, string>>,
    type: string,
    body: string,
    own: Readonly<Record<string, string>> | undefined,
  ): string[] {
    const headers = everyAnswer.slice();
    headers.push('X-Request-Id', exchange.requestId);
    for (const name in limits) headers.push(name, limits[name] as string);
    if (own !== undefined) for (const name in own) headers.push(name, own[name] as string);
    headers.push('Content-Type', type, 'Content-Length', String(Buffer.byteLength(body)));
    return headers;
  }

  /** The headers of a 200: from the list assembled once when the limits are the usual three. */
  function okHeadersOf(exchange: Exchange, length: string): string[] {
    const { limits } = exchange;
    const limit = limits[RATE_LIMIT_HEADERS[0]];
    const remaining = limits[RATE_LIMIT_HEADERS[1]];
    const reset = limits[RATE_LIMIT_HEADERS[2]];
    if (limit === undefined || remaining === undefined || reset === undefined) {
      const headers = headersOf(exchange, limits, JSON_TYPE, '', undefined);
      headers[headers.length - 1] = length;
      return headers;
    }
    const headers = okHeaders.slice();
    headers[okRequestIdAt] = exchange.requestId;
    headers[okLimitsAt] = limit;
    headers[okLimitsAt + 2] = remaining;
    headers[okLimitsAt + 4] = reset;
    headers[okLengthAt] = length;
    return headers;
  }

  /**
   * A problem's answer. With `validateResponses`, a problem the spec does not document for the
   * operation becomes a logged 500.
   */
  function problemAnswer(
    exchange: Exchange,
    limits: Readonly<Record<string, string>>,
    occurrence: ProblemOccurrence,
    operation?: ApiOperation,
  ): ApiAnswer {
    let answered = occurrence;
    let problem = problemBody(occurrence, exchange.requestId, exchange.instance);
    const mismatch = operation && responseValidator?.(operation, problem.status, problem);
    if (mismatch !== undefined) {
      exchange.error({ mismatch }, 'the response does not match the spec');
      answered = INTERNAL_ERROR;
      problem = problemBody(INTERNAL_ERROR, exchange.requestId, exchange.instance);
    }
    const body = JSON.stringify(problem);
    const headers = headersOf(exchange, limits, PROBLEM_TYPE, body, answered.headers);
    return answerOf(exchange, problem.status, headers, body);
  }

  /** Every request the API takes: its id, telemetry and log line. */
  function begin(request: ApiRequest, operation: ApiOperation | undefined): Exchange {
    const requestId = request.requestId ?? requestIdFrom(request.headers['x-request-id']);
    const observed = telemetry?.start(operation, request.method, request.headers, requestId);
    const sent = request.originalUrl ?? request.url;
    const query = sent.indexOf('?');
    const instance = query < 0 ? sent : sent.slice(0, query);
    const started = parts.logRequests ? performance.now() : undefined;
    return new Exchange(request, requestId, observed, sent, instance, logger, started);
  }

  /**
   * Goes on with `next` now when `step` is at hand; otherwise when it settles, the request's
   * deadline running from its first wait. The answer is then the request's promise, which the
   * first answer resolves (the operation's, or the timeout's), and an unexpected failure of a
   * later step a logged 500.
   */
  function proceed<T>(
    exchange: Exchange,
    operation: ApiOperation,
    step: MaybeAsync<T>,
    next: (exchange: Exchange, operation: ApiOperation, value: T) => Answering,
  ): Answering {
    if (!isThenable(step)) return next(exchange, operation, step as T);
    if (exchange.waiting === undefined) {
      exchange.waiting = new Promise<ApiAnswer>((resolve) => {
        exchange.settle = resolve;
      });
      deadlines.start(exchange);
    }
    Promise.resolve(step)
      .then((value) => {
        const answer = next(exchange, operation, value);
        // A step that waits again answers through the same promise.
        if (!isThenable(answer)) answerLater(exchange, answer);
      })
      .catch((error: unknown) => answerLater(exchange, failed(exchange, error)));
    return exchange.waiting;
  }

  /** The first answer of a request that waited; later ones are dropped. */
  function answerLater(exchange: Exchange, answer: ApiAnswer): void {
    if (exchange.answered) return;
    exchange.answered = true;
    deadlines.finish(exchange);
    exchange.settle(answer);
  }

  /** An unexpected failure: a logged 500. */
  function failed(exchange: Exchange, error: unknown): ApiAnswer {
    exchange.error(
      { err: error, method: exchange.request.method, path: exchange.instance },
      'unexpected error',
    );
    return problemAnswer(exchange, NO_HEADERS, INTERNAL_ERROR);
  }

  // The steps of an operation's request, in order. Each takes what the one before found out.

  /** The head: the bearer token (401, 403 without the scope, 503 when it cannot be checked). */
  function authorize(exchange: Exchange, operation: ApiOperation): Answering {
    const { headers, address } = exchange.request;
    const permission = authorizeRequest(
      parts.verifier,
      headers.authorization,
      headers[RESTAURANT_HEADER],
      address,
      operation.scope,
      exchange,
    );
    return proceed(exchange, operation, permission, countRequest);
  }

  /**
   * The restaurant the token may act for (403), then the rate limits of the restaurant (or the
   * client's address): 429. Their headers go on every answer from here on.
   */
  function countRequest(
    exchange: Exchange,
    operation: ApiOperation,
    permission: Permission,
  ): Answering {
    if (permission.problem !== undefined) {
      return problemAnswer(exchange, NO_HEADERS, permission.problem, operation);
    }
    exchange.restaurant = permission.restaurant;
    if (rateLimiter === undefined) return readBody(exchange, operation, UNLIMITED);
    // The default in-memory limits decide at once; a shared limiter's decision may be awaited.
    const decision = rateLimiter.check(permission.rateLimitKey, exchange);
    return proceed(exchange, operation, decision, readBody);
  }

  /** The body, of an operation that takes one: JSON in UTF-8 (415), then read (413, 400). */
  function readBody(
    exchange: Exchange,
    operation: ApiOperation,
    decision: RateLimitDecision,
  ): Answering {
    exchange.limits = decision.headers;
    if (decision.refused !== undefined) {
      return problemAnswer(exchange, exchange.limits, decision.refused, operation);
    }
    if (operation.bodySchema === undefined) return validate(exchange, operation, NO_BODY);
    const { headers, body } = exchange.request;
    if (!isJsonMediaType(headers['content-type'])) {
      return problemAnswer(exchange, exchange.limits, UNSUPPORTED_MEDIA_TYPE, operation);
    }
    if ('parsed' in body) return validate(exchange, operation, { value: body.parsed });
    return proceed(
      exchange,
      operation,
      readJsonBody(body, headers, parts.bodyLimitBytes),
      validate,
    );
  }

  /**
   * The inputs: a constrained path parameter that does not percent-decode, then the spec (the
   * identifiers parsed, the restaurant's as authorized); then the use case.
   */
  function validate(exchange: Exchange, operation: ApiOperation, read: JsonBody): Answering {
    const { limits } = exchange;
    if (read.problem !== undefined) return problemAnswer(exchange, limits, read.problem, operation);
    const { request, undecodable } = exchange;
    if (undecodable !== undefined) {
      const input = {
        path: `/params/${undecodable}`,
        message: 'is not valid percent-encoding',
        missing: false,
      };
      return problemAnswer(exchange, limits, validationProblem([input]), operation);
    }
    const queryAt = request.url.indexOf('?');
    const query = queryAt < 0 ? NO_QUERY : parseQuery(request.url.slice(queryAt + 1));
    const check = parts.requestValidators.get(operation.id)?.(
      exchange.params,
      request.headers,
      query,
      read.value,
      exchange.restaurant,
    );
    if (check === undefined || !check.valid) {
      const problem = validationProblem(check?.invalid ?? []);
      return problemAnswer(exchange, limits, problem, operation);
    }
    // Answered already (the request timed out while its body or a check was pending): the client
    // was told it failed, so its change must not start.
    if (exchange.answered) return exchange.waiting as Promise<ApiAnswer>;
    const result = parts.run(operation.id, {
      restaurant: check.restaurant,
      path: check.path,
      query: check.query,
      requestId: exchange.requestId,
      telemetry: exchange.telemetry,
    });
    return proceed(exchange, operation, result, respond);
  }

  /** The use case's outcome: its problem, or its events handed on and its 200. */
  function respond(
    exchange: Exchange,
    operation: ApiOperation,
    result: OperationResult,
  ): ApiAnswer {
    const { limits } = exchange;
    if (result.error !== undefined) {
      logDomainError(result.error, exchange);
      return problemAnswer(exchange, limits, domainProblem(result.error), operation);
    }
    if (result.events.length > 0) parts.emit(result.events, exchange);
    // Validated as sent: the JSON text, parsed (only with `validateResponses`, in tests).
    const mismatch = responseValidator?.(operation, 200, JSON.parse(result.text));
    if (mismatch !== undefined) {
      exchange.error({ mismatch }, 'the response does not match the spec');
      return problemAnswer(exchange, limits, INTERNAL_ERROR, operation);
    }
    return answerOf(exchange, 200, okHeadersOf(exchange, result.length), result.text);
  }

  return (request) => {
    const queryAt = request.url.indexOf('?');
    const match = parts.route(
      request.method,
      queryAt < 0 ? request.url : request.url.slice(0, queryAt),
    );
    if (match === undefined) return undefined;
    if (match.kind === 'not-found') {
      return problemAnswer(begin(request, undefined), NO_HEADERS, NOT_FOUND);
    }
    if (match.kind === 'method-not-allowed') {
      const problem: ProblemOccurrence = {
        code: 'METHOD_NOT_ALLOWED',
        detail: `${request.method} is not supported here; use ${match.allow}.`,
        headers: { Allow: match.allow },
      };
      return problemAnswer(begin(request, undefined), NO_HEADERS, problem);
    }
    const exchange = begin(request, match.operation);
    exchange.params = match.params;
    exchange.undecodable = match.undecodable;
    try {
      return authorize(exchange, match.operation);
    } catch (error) {
      // A step that failed at once (a store that throws rather than answering an error).
      if (exchange.waiting === undefined) return failed(exchange, error);
      answerLater(exchange, failed(exchange, error));
      return exchange.waiting;
    }
  };
}
