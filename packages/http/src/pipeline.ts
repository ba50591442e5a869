/**
 * The request pipeline of the API, whatever the web framework: a request's head and body in, its
 * answer (status, headers, body) out. Every adapter (Express, Fastify, node:http) only reads the
 * request from its framework, calls {@link Pipeline}, and writes the answer. Top to bottom:
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
import type { Readable } from 'node:stream';
import type { RecordedEvent } from '@workforce-kit/core';
import type { AccessTokenVerifier } from './auth/access-token.js';
import { authorizeRequest, RESTAURANT_HEADER } from './auth/authorize.js';
import { readJsonBody } from './json-body.js';
import type { Logger } from './logger.js';
import { isJsonMediaType } from './media-type.js';
import type { OperationRunner } from './operation-runner.js';
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
import type { RateLimiter } from './rate-limit.js';
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
   * The body: the request's stream, not yet read (Node's `IncomingMessage`), read only for an
   * operation that takes one once its head passed; or what a body parser of the host already made
   * of it.
   */
  readonly body: Readable | { readonly parsed: unknown };
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
   * (metrics, spans, the request log line): `res.once('close', () => answer.closed?.(res))`.
   */
  readonly closed: ((response: AnsweredResponse) => void) | undefined;
}

/**
 * The pipeline: the answer to a request, or `undefined` when its path is not the API's (the host
 * answers it). The answer's promise never rejects: an unexpected failure is a logged 500, and a
 * request not answered within the timeout is answered 503 `REQUEST_TIMEOUT` (its change, if it had
 * not started, never starts).
 */
export type Pipeline = (request: ApiRequest) => Promise<ApiAnswer> | undefined;

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
const NOT_FOUND: ProblemOccurrence = { code: 'NOT_FOUND', detail: 'No operation has this path.' };
const UNSUPPORTED_MEDIA_TYPE: ProblemOccurrence = {
  code: 'UNSUPPORTED_MEDIA_TYPE',
  detail: 'Content-Type must be application/json.',
};

/** One request in the pipeline: what every answer to it carries, and whether it was answered. */
class Exchange {
  answered = false;
  settle: (answer: ApiAnswer) => void = () => undefined;

  constructor(
    readonly requestId: string,
    readonly log: RequestLogger,
    readonly telemetry: RequestTelemetry | undefined,
    /** The path as sent: every problem's `instance`. */
    readonly instance: string,
    readonly closed: ApiAnswer['closed'],
  ) {}

  /** The first answer counts (the operation's, or the timeout's); later ones are dropped. */
  answer(answer: ApiAnswer): void {
    if (this.answered) return;
    this.answered = true;
    this.settle(answer);
  }
}

/**
 * Makes the pipeline from the API's parts, once.
 *
 * @example
 * ```ts
 * const answer = await api.handle({ method: req.method, url: req.url, headers: req.headers, address: req.socket.remoteAddress, body: req });
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
  const deadlines = new RequestDeadlines<Exchange>(parts.requestTimeoutMs, (exchange) => {
    exchange.log.warn({ timeoutMs: parts.requestTimeoutMs }, 'request timed out');
    exchange.answer(
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
      exchange.log.error({ mismatch }, 'the response does not match the spec');
      answered = INTERNAL_ERROR;
      problem = problemBody(INTERNAL_ERROR, exchange.requestId, exchange.instance);
    }
    const body = JSON.stringify(problem);
    return {
      status: problem.status,
      headers: headersOf(exchange, limits, PROBLEM_TYPE, body, answered.headers),
      body,
      closed: exchange.closed,
    };
  }

  /** Every request the API takes: its id, logger, telemetry and log line. */
  function begin(request: ApiRequest, operation: ApiOperation | undefined): Exchange {
    const requestId = request.requestId ?? requestIdFrom(request.headers['x-request-id']);
    const observed = telemetry?.start(operation, request.method, request.headers, requestId);
    const log = new RequestLogger(logger, requestId, observed?.logBindings);
    const sent = request.originalUrl ?? request.url;
    const query = sent.indexOf('?');
    let closed: ApiAnswer['closed'];
    if (parts.logRequests) {
      const started = performance.now();
      closed = (response) => {
        observed?.end(response);
        // The line most requests write, built as one literal (RequestLogger would copy it).
        const line = {
          requestId,
          ...observed?.logBindings,
          method: request.method,
          path: redactedUrl(sent),
          status: response.statusCode,
          ms: Math.round(performance.now() - started),
        };
        logger.info(line, 'request');
      };
    } else if (observed !== undefined) {
      closed = (response) => observed.end(response);
    }
    return new Exchange(requestId, log, observed, query < 0 ? sent : sent.slice(0, query), closed);
  }

  /** An operation's request, from its token to its answer. */
  async function serve(
    exchange: Exchange,
    request: ApiRequest,
    operation: ApiOperation,
    params: Readonly<Record<string, string>>,
    undecodable: string | undefined,
  ): Promise<ApiAnswer | undefined> {
    const { log } = exchange;
    const { headers } = request;
    // The head: the bearer token (401, 403 without the scope, 503 when it cannot be checked) and
    // the restaurant the token may act for (403), its header parsed.
    const permission = await authorizeRequest(
      parts.verifier,
      {
        authorization: headers.authorization,
        restaurantContext: headers[RESTAURANT_HEADER],
        address: request.address,
      },
      operation.scope,
      log,
    );
    if (permission.problem !== undefined) {
      return problemAnswer(exchange, NO_HEADERS, permission.problem, operation);
    }
    // The rate limits of the restaurant (or the client's address): 429. Their headers go on every
    // answer from here on.
    let limits = NO_HEADERS;
    if (rateLimiter !== undefined) {
      const checked = rateLimiter.check(permission.rateLimitKey, log);
      // The default in-memory limits decide at once; a shared limiter's decision is awaited.
      const decision = checked instanceof Promise ? await checked : checked;
      limits = decision.headers;
      if (decision.refused !== undefined) {
        return problemAnswer(exchange, limits, decision.refused, operation);
      }
    }
    // The body, of an operation that takes one: JSON in UTF-8 (415), then read (413, 400).
    let body: unknown;
    if (operation.bodySchema !== undefined) {
      if (!isJsonMediaType(headers['content-type'])) {
        return problemAnswer(exchange, limits, UNSUPPORTED_MEDIA_TYPE, operation);
      }
      if ('parsed' in request.body) {
        body = request.body.parsed;
      } else {
        const read = await readJsonBody(request.body, headers, parts.bodyLimitBytes);
        if (read.problem !== undefined) {
          return problemAnswer(exchange, limits, read.problem, operation);
        }
        body = read.value;
      }
    }
    // The inputs: a constrained path parameter that does not percent-decode, then the spec (the
    // identifiers parsed, the restaurant's as authorized).
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
    const check = parts.requestValidators.get(operation.id)?.({
      params,
      headers,
      query,
      body,
      restaurant: permission.restaurant,
    });
    if (check === undefined || !check.valid) {
      const problem = validationProblem(check?.invalid ?? []);
      return problemAnswer(exchange, limits, problem, operation);
    }
    // Answered already (the request timed out while its body or a check was pending): the client
    // was told it failed, so its change must not start.
    if (exchange.answered) return undefined;
    const result = await parts.run(operation.id, {
      restaurant: check.restaurant,
      path: check.path,
      query: check.query,
      requestId: exchange.requestId,
      telemetry: exchange.telemetry,
    });
    if (result.error !== undefined) {
      logDomainError(result.error, log);
      return problemAnswer(exchange, limits, domainProblem(result.error), operation);
    }
    parts.emit(result.events, log);
    const mismatch = responseValidator?.(operation, 200, result.body);
    if (mismatch !== undefined) {
      log.error({ mismatch }, 'the response does not match the spec');
      return problemAnswer(exchange, limits, INTERNAL_ERROR, operation);
    }
    const text = JSON.stringify(result.body);
    return {
      status: 200,
      headers: headersOf(exchange, limits, JSON_TYPE, text, undefined),
      body: text,
      closed: exchange.closed,
    };
  }

  return (request) => {
    const queryAt = request.url.indexOf('?');
    const match = parts.route(
      request.method,
      queryAt < 0 ? request.url : request.url.slice(0, queryAt),
    );
    if (match === undefined) return undefined;
    if (match.kind === 'not-found') {
      return Promise.resolve(problemAnswer(begin(request, undefined), NO_HEADERS, NOT_FOUND));
    }
    if (match.kind === 'method-not-allowed') {
      const problem: ProblemOccurrence = {
        code: 'METHOD_NOT_ALLOWED',
        detail: `${request.method} is not supported here; use ${match.allow}.`,
        headers: { Allow: match.allow },
      };
      return Promise.resolve(problemAnswer(begin(request, undefined), NO_HEADERS, problem));
    }
    const { operation } = match;
    const exchange = begin(request, operation);
    return new Promise<ApiAnswer>((resolve) => {
      exchange.settle = (answer) => {
        deadlines.finish(exchange);
        resolve(answer);
      };
      deadlines.start(exchange);
      serve(exchange, request, operation, match.params, match.undecodable).then(
        (answer) => answer && exchange.answer(answer),
        (error: unknown) => {
          exchange.log.error(
            { err: error, method: request.method, path: exchange.instance },
            'unexpected error',
          );
          exchange.answer(problemAnswer(exchange, NO_HEADERS, INTERNAL_ERROR));
        },
      );
    });
  };
}
