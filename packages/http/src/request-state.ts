import type { AnswerHeaders, RateLimitValues } from './answer-headers.js';
import type { Logger, LogSource } from './logger.js';
import type { Answered } from './operation-runner.js';
import type { ApiOperation } from './operations.js';
import type { ApiAnswer, ApiRequest, PipelineParts } from './pipeline.js';
import { INTERNAL_ERROR, type ProblemOccurrence, problemBody } from './problems.js';
import { redactedUrl } from './redacted-url.js';
import { requestIdFrom } from './request-id.js';
import { RequestLogger } from './request-logger.js';
import type { AnsweredResponse, RequestTelemetry } from './telemetry.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const PROBLEM_TYPE = 'application/problem+json; charset=utf-8';

/** What every request's state shares: the pipeline's parts, and its answers' headers. */
export interface SharedParts {
  readonly parts: PipelineParts;
  readonly headers: AnswerHeaders;
}

/**
 * An answer the API made (a step's, or the driver's): `instanceof` tells it from what a step found
 * out of a request. Its two kinds differ in `closed` alone.
 */
export abstract class MadeAnswer {
  constructor(
    readonly status: number,
    readonly headers: string[],
    readonly body: string,
  ) {}
}

/** The answer of a request whose end nothing observes. */
class PlainAnswer extends MadeAnswer implements ApiAnswer {
  readonly closed = undefined;
}

/**
 * The answer of a request whose end is observed (metrics, spans, its log line): `closed`, a method
 * so that no function is made per answer, ends it. Adapters call it as `answer.closed?.(response)`.
 */
class ObservedAnswer extends MadeAnswer implements ApiAnswer {
  constructor(
    status: number,
    headers: string[],
    body: string,
    private readonly request: RequestState,
  ) {
    super(status, headers, body);
  }

  closed(response: AnsweredResponse): void {
    this.request.end(response);
  }
}

/** An answer the API made, as an adapter writes it. */
export type Answer = PlainAnswer | ObservedAnswer;

/** Whether a value is an answer the API made. */
export function isAnswer(value: unknown): value is Answer {
  return value instanceof MadeAnswer;
}

/**
 * A request the API takes, as far as its answer needs it: its id, its telemetry, and how its
 * answers are made. Its logger, whose lines carry the request id, is made when a line is written.
 */
export class RequestState implements LogSource {
  /** Its `X-Request-Id`: the host's, a sane one it was sent, or a new one. */
  readonly requestId: string;
  readonly telemetry: RequestTelemetry | undefined;
  /**
   * When it was taken (`performance.now()`), for its telemetry and its log line; `undefined` when
   * neither is kept, and its end is not observed.
   */
  readonly started: number | undefined;
  #log: RequestLogger | undefined;
  #ended = false;

  /** @param operation - the operation its path names, if any (its telemetry is labelled with it) */
  constructor(
    readonly shared: SharedParts,
    readonly incoming: ApiRequest,
    operation: ApiOperation | undefined,
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
    this.started =
      parts.logRequests || this.telemetry !== undefined ? performance.now() : undefined;
  }

  /** The operation its path names: none for a 404 or a 405. */
  get operation(): ApiOperation | undefined {
    return undefined;
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
   *
   * @param limits - the request's rate limits, once counted: their `RateLimit-*` go on it
   */
  problem(occurrence: ProblemOccurrence, limits?: RateLimitValues): Answer {
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
      limits,
      PROBLEM_TYPE,
      length,
      answered.headers,
    );
    return answerOf(this, body.status, headers, text);
  }

  /** The 200 of an operation's result (validated as sent with `validateResponses`: a 500 if not). */
  ok(result: Answered, limits: RateLimitValues | undefined): Answer {
    const { operation } = this;
    const mismatch =
      operation && this.shared.parts.responseValidator?.(operation, 200, JSON.parse(result.text));
    if (mismatch !== undefined) {
      this.log.error({ mismatch }, 'the response does not match the spec');
      return this.problem(INTERNAL_ERROR, limits);
    }
    const headers = this.shared.headers.of(
      this.requestId,
      limits,
      JSON_TYPE,
      result.length,
      undefined,
    );
    return answerOf(this, 200, headers, result.text);
  }

  /** An unexpected failure: a logged 500. */
  failed(error: unknown, limits?: RateLimitValues): Answer {
    this.log.error(
      { err: error, method: this.incoming.method, path: this.instance },
      'unexpected error',
    );
    return this.problem(INTERNAL_ERROR, limits);
  }

  /**
   * Its answer's response closed: its telemetry ended, and its log line written, with the time it
   * took read once for both. Only the first call counts (an adapter may see a finish and a close).
   */
  end(response: AnsweredResponse): void {
    if (this.started === undefined || this.#ended) return;
    this.#ended = true;
    const elapsedMs = performance.now() - this.started;
    const { requestId, telemetry, incoming, shared } = this;
    telemetry?.end(response, elapsedMs);
    if (!shared.parts.logRequests) return;
    // The line most requests write, as one literal (RequestLogger would copy it); the trace's ids
    // only when traced (a spread of none would still make the literal the slow way).
    const path = redactedUrl(incoming.originalUrl ?? incoming.url);
    const ms = Math.round(elapsedMs);
    const bindings = telemetry?.logBindings;
    const { method } = incoming;
    const { statusCode: status } = response;
    const line =
      bindings === undefined
        ? { requestId, method, path, status, ms }
        : { requestId, ...bindings, method, path, status, ms };
    shared.parts.logger.info(line, 'request');
  }
}

/** An answer: observed (its `closed` ends the request's telemetry and log line) when it is. */
function answerOf(request: RequestState, status: number, headers: string[], body: string): Answer {
  return request.started !== undefined
    ? new ObservedAnswer(status, headers, body, request)
    : new PlainAnswer(status, headers, body);
}
