/**
 * An operation's request as its steps find it out, one type per step: each step takes the one the
 * step before it gives and gives the next, so that steps put in another order do not compile
 * (pipeline.ts). Each holds what its step found and the stage before it; none is changed once made.
 */
import type { Guid } from '@workforce-kit/core';
import type { PathInputs } from './identifier-inputs.js';
import type { Logger, LogSource } from './logger.js';
import type { Answered, OperationInput } from './operation-runner.js';
import type { ApiOperation } from './operations.js';
import type { ApiRequest, PipelineParts } from './pipeline.js';
import type { ProblemOccurrence } from './problems.js';
import type { RateLimitDecision, RateLimitSubject } from './rate-limit.js';
import { type Answer, RequestState, type SharedParts } from './request-state.js';
import type { ValidInputs } from './request-validation.js';
import type { OperationMatch } from './route-table.js';
import type { RequestTelemetry } from './telemetry.js';

/** What every step takes: a request, and how its answers are made so far. */
export interface StepInput extends LogSource {
  /** A problem's answer, with the rate limits' headers once they are counted. */
  problem(occurrence: ProblemOccurrence): Answer;
  /** An unexpected failure's answer: a logged 500. */
  failed(error: unknown): Answer;
}

/** An operation's request, routed: the operation, its path parameters and its query, parsed once. */
export class RoutedRequest extends RequestState {
  constructor(
    shared: SharedParts,
    incoming: ApiRequest,
    readonly route: OperationMatch,
  ) {
    super(shared, incoming, route.operation);
  }

  override get operation(): ApiOperation {
    return this.route.operation;
  }
}

/** A stage after routing: answers made by the routed request, with the limits once counted. */
abstract class LaterStage implements StepInput {
  /** The request as routing found it. */
  abstract readonly routed: RoutedRequest;
  /** The rate limits' decision, once counted: their `RateLimit-*` go on every later answer. */
  abstract readonly limits: RateLimitDecision | undefined;

  /** The API's parts, which the steps work with. */
  get parts(): PipelineParts {
    return this.routed.shared.parts;
  }

  get log(): Logger {
    return this.routed.log;
  }

  problem(occurrence: ProblemOccurrence): Answer {
    return this.routed.problem(occurrence, this.limits);
  }

  failed(error: unknown): Answer {
    return this.routed.failed(error, this.limits);
  }
}

/** A request its token may make (`authorize`): the restaurant it acts for, and its rate limits' key. */
export class AuthorizedRequest extends LaterStage implements RateLimitSubject {
  /**
   * @param restaurant - the context restaurant, parsed; `undefined` when the request names none
   *   usable (validation answers it)
   * @param rateLimitKey - what its rate limits count it against
   */
  constructor(
    readonly routed: RoutedRequest,
    readonly restaurant: Guid | undefined,
    readonly rateLimitKey: string,
  ) {
    super();
  }

  get limits(): undefined {
    return undefined;
  }
}

/** A request its rate limits let through (`limitRate`): their decision, none when not counted. */
export class LimitedRequest extends LaterStage {
  constructor(
    readonly authorized: AuthorizedRequest,
    readonly limits: RateLimitDecision | undefined,
  ) {
    super();
  }

  get routed(): RoutedRequest {
    return this.authorized.routed;
  }
}

/** A request whose body is read (`readBody`): its JSON value, `undefined` for none. */
export class RequestWithBody extends LaterStage {
  constructor(
    readonly limited: LimitedRequest,
    readonly body: unknown,
  ) {
    super();
  }

  get routed(): RoutedRequest {
    return this.limited.routed;
  }

  get limits(): RateLimitDecision | undefined {
    return this.limited.limits;
  }

  /** The context restaurant, as `authorize` parsed it. */
  get restaurant(): Guid | undefined {
    return this.limited.authorized.restaurant;
  }
}

/** A request whose inputs are valid (`validate`): what its use case is given. */
export class ValidRequest extends LaterStage implements OperationInput {
  constructor(
    readonly read: RequestWithBody,
    readonly inputs: ValidInputs,
  ) {
    super();
  }

  get routed(): RoutedRequest {
    return this.read.routed;
  }

  get limits(): RateLimitDecision | undefined {
    return this.read.limits;
  }

  get restaurant(): Guid {
    return this.inputs.restaurant;
  }

  get path(): PathInputs {
    return this.inputs;
  }

  get query(): Readonly<Record<string, unknown>> {
    return this.inputs.query;
  }

  get requestId(): string {
    return this.routed.requestId;
  }

  get telemetry(): RequestTelemetry | undefined {
    return this.routed.telemetry;
  }

  /** The 200 of its operation's result. */
  ok(result: Answered): Answer {
    return this.routed.ok(result, this.limits);
  }
}
