import type { Guid } from '@workforce-kit/core';
import type { AnswerHeaders } from './answer-headers.js';
import type { Logger, LogSource } from './logger.js';
import type { Answered } from './operation-runner.js';
import type { ApiOperation } from './operations.js';
import type { ApiAnswer, ApiRequest, PipelineParts } from './pipeline.js';
import { INTERNAL_ERROR, type ProblemOccurrence, problemBody } from './problems.js';
import type { RateLimitDecision } from './rate-limit.js';
import { redactedUrl } from './redacted-url.js';
import { requestIdFrom } from './request-id.js';
import { RequestLogger } from './request-logger.js';
import type { ValidInputs } from './request-validation.js';
import type { OperationMatch } from './route-table.js';
import type { AnsweredResponse, RequestTelemetry } from './telemetry.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** What every request's state shares: the pipeline's parts, and its answers' headers. */
export interface SharedParts {
  readonly parts: PipelineParts;
  readonly headers: AnswerHeaders;
}

/**
 * A request the API takes, as far as its answer needs it: its id, its telemetry, the rate limits
 * counted for it, and how its answers are made. Its logger, whose lines carry the request id, is
 * made when a line is written.
 */
export class RequestState implements LogSource {
  /** Its `X-Request-Id`: the host's, a sane one it was sent, or a new one. */
  readonly requestId: string;
  readonly telemetry: RequestTelemetry | undefined;
  /** When it was taken (`performance.now()`), for its log line; `undefined` when none is written. */
  readonly started: number | undefined;
  /** The rate limits' decision, once counted: its `RateLimit-*` go on every later answer. */
  limits: RateLimitDecision | undefined;
  #log: RequestLogger | undefined;

  constructor(
    readonly shared: SharedParts,
    readonly incoming: ApiRequest,
    readonly operation: ApiOperation | undefined,
  ) {
    const { parts } = shared;
    const requestId = incoming.requestId ?? requestIdFrom(incoming.headers['x-request-id']);
    this.requestId = requestId;
    this.telemetry = parts.telemetry?.start(
      operation,
      incoming.method,
      incoming.headers,
      requestId,
    );
    this.started = parts.logRequests ? performance.now() : undefined;
  }

  get log(): Logger {
    this.#log ??= new RequestLogger(
      this.shared.parts.logger,
      this.requestId,
      this.telemetry?.logBindings,
    );
    return this.#log;
  }

  /** The path as sent, without the query: every problem's `instance`. */
  get instance(): string {
    const sent = this.incoming.originalUrl ?? this.incoming.url;
    const query = sent.indexOf('?');
    return query < 0 ? sent : sent.slice(0, query);
  }

  /**
   * A problem's answer. With `validateResponses`, a problem the spec does not document for the
   * operation is a logged 500.
   */
  problem(occurrence: ProblemOccurrence): ApiAnswer {
    const { instance } = this;
    let answered = occurrence;
    let body = problemBody(occurrence, this.requestId, instance);
    const { operation } = this;
    const mismatch =
      operation && this.shared.parts.responseValidator?.(operation, body.status, body);
    if (mismatch !== undefined) {
      this.log.error({ mismatch }, 'the response does not match the spec');
      answered = INTERNAL_ERROR;
      body = problemBody(INTERNAL_ERROR, this.requestId, instance);
    }
    const text = JSON.stringify(body);
    const length = String(Buffer.byteLength(text));
    const headers = this.shared.headers.of(
      this.requestId,
      this.limits,
      PROBLEM_TYPE,
      length,
      answered.headers,
    );
    return answerOf(this, body.status, headers, text);
  }

  /** The 200 of an operation's result (validated as sent with `validateResponses`: a 500 if not). */
  ok(result: Answered): ApiAnswer {
    const { operation } = this;
    const mismatch =
      operation && this.shared.parts.responseValidator?.(operation, 200, JSON.parse(result.text));
    if (mismatch !== undefined) {
      this.log.error({ mismatch }, 'the response does not match the spec');
      return this.problem(INTERNAL_ERROR);
    }
    const headers = this.shared.headers.of(
      this.requestId,
      this.limits,
      JSON_TYPE,
      result.length,
      undefined,
    );
    return answerOf(this, 200, headers, result.text);
  }

  /** An unexpected failure: a logged 500. */
  failed(error: unknown): ApiAnswer {
    this.log.error(
      { err: error, method: this.incoming.method, path: this.instance },
      'unexpected error',
    );
    return this.problem(INTERNAL_ERROR);
  }

  /** Its answer's response closed: its telemetry ended, and its log line written. */
  end(response: AnsweredResponse): void {
    this.telemetry?.end(response);
    if (this.started === undefined) return;
    // The line most requests write, as one literal (RequestLogger would copy it); the trace's ids
    // only when traced (a spread of none would still make the literal the slow way).
    const { requestId, telemetry, incoming } = this;
    const path = redactedUrl(incoming.originalUrl ?? incoming.url);
    const ms = Math.round(performance.now() - this.started);
    const bindings = telemetry?.logBindings;
    const { method } = incoming;
    const { statusCode: status } = response;
    const line =
      bindings === undefined
        ? { requestId, method, path, status, ms }
        : { requestId, ...bindings, method, path, status, ms };
    this.shared.parts.logger.info(line, 'request');
  }
}

/** An answer: observed (its `closed` ends the request's telemetry and log line) when it is. */
function answerOf(
  request: RequestState,
  status: number,
  headers: string[],
  body: string,
): ApiAnswer {
  return request.started !== undefined || request.telemetry !== undefined
    ? new ObservedAnswer(status, headers, body, request)
    : { status, headers, body, closed: undefined };
}

/**
 * The answer of a request whose end is observed: `closed` (a method, so that no function is made
 * per answer) ends it. Adapters call it as `answer.closed?.(response)`.
 */
class ObservedAnswer implements ApiAnswer {
  constructor(
    readonly status: number,
    readonly headers: string[],
    readonly body: string,
    private readonly request: RequestState,
  ) {}

  closed(response: AnsweredResponse): void {
    this.request.end(response);
  }
}

/**
 * A request of one of the API's operations, as the steps find it out: each field is set by the
 * step named beside it and read by the steps after it.
 */
export class OperationRequest extends RequestState {
  declare readonly operation: ApiOperation;
  /** The path parameters, percent-decoded; and one the spec constrains that does not decode. */
  readonly route: OperationMatch;
  /**
   * `authorize`: the restaurant the token may act for (`undefined` when the request names none
   * usable: validation answers it), and the key its rate limits count it against.
   */
  restaurant: Guid | undefined;
  rateLimitKey = '';
  /** `readBody`: the body's value (`undefined` for none). */
  body: unknown;
  /** `validate`: the inputs, identifiers parsed. */
  inputs!: ValidInputs;

  constructor(shared: SharedParts, incoming: ApiRequest, route: OperationMatch) {
    super(shared, incoming, route.operation);
    this.route = route;
  }
}
