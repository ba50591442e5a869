import {
  isThenable,
  type MaybeAsync,
  runSteps,
  type StepList,
  type Thenable,
} from '@workforce-kit/core';
import type { Answering } from './pipeline.js';
import { type ProblemOccurrence, RETRY_AFTER_SECONDS } from './problems.js';
import { RequestDeadlines } from './request-deadlines.js';
import type { StepInput } from './request-stages.js';
import { type Answer, isAnswer } from './request-state.js';

/** What flows between the steps: what a step found out, or the request's answer. */
type StepValue = StepInput | Answer;

/** What a step gives for the next one, out of its outcome now or later: its answers left out. */
type Found<Outcome> =
  Outcome extends Thenable<infer Later> ? Exclude<Later, Answer> : Exclude<Outcome, Answer>;

/**
 * The steps of a request, in order, typed so that each takes what the one before it gives: a step
 * put before the one that finds out what it takes does not compile. `Last` is what the last step
 * gives; a list whose last step always answers gives `never`.
 */
export class Steps<First extends StepInput, Last> {
  /** What the last step gives (a type only). */
  declare readonly last: Last;

  private constructor(readonly list: readonly GuardedStep[]) {}

  /** No step yet: the list of a request that starts as `First`. */
  static from<First extends StepInput>(): Steps<First, First> {
    return new Steps([]);
  }

  /** The list with `step` after its last one. */
  and<Outcome extends MaybeAsync<StepValue>>(
    this: Steps<First, Last & StepInput>,
    step: (request: Last & StepInput) => Outcome,
  ): Steps<First, Found<Outcome>> {
    return new Steps([...this.list, guarded(step)]);
  }
}

/** A step as the driver runs it: given what the step before gave, its failures answered. */
type GuardedStep = (value: StepValue) => MaybeAsync<StepValue>;

/**
 * A step whose throw is its input's logged 500, so that the answer carries what the steps before
 * found (the rate limits' headers); the driver answers a rejection the same way.
 */
function guarded<In extends StepInput>(step: (request: In) => MaybeAsync<StepValue>): GuardedStep {
  return (value) => {
    // A run stops at its first answer: no step is given one.
    if (isAnswer(value)) return value;
    // The list's types say that a step is given what the one before it gave: its `In`.
    const request = value as In;
    try {
      return step(request);
    } catch (error) {
      return request.failed(error);
    }
  };
}

/**
 * A request that waits on a step: the promise of its answer, which its first answer settles, and
 * the step's input, which answers it if its deadline passes first.
 */
class Waiting {
  answered = false;
  readonly answer: Promise<Answer>;
  readonly settle: (answer: Answer) => void;

  constructor(public at: StepInput) {
    let settle: (answer: Answer) => void = () => undefined;
    // (A promise's executor runs at once: `settle` is its resolve when the constructor returns.)
    this.answer = new Promise((resolve) => {
      settle = resolve;
    });
    this.settle = settle;
  }
}

/**
 * Runs a request through its steps (core's `runSteps`), in the spirit of hono's `compose`:
 * synchronously while each step answers at once, so that such a request is answered with no
 * promise; from the first step that returns a promise, the rest runs when it settles. A request
 * that waits is answered by a promise that never rejects: its first answer settles it (a later one
 * is dropped), a step that throws or rejects is a logged 500, and a request not answered within
 * the timeout is a 503 `REQUEST_TIMEOUT`, after which none of its steps runs (its change, if not
 * started, never starts).
 */
export class StepDriver<First extends StepInput>
  implements StepList<StepValue, Waiting | undefined>
{
  readonly steps: readonly GuardedStep[];
  readonly #deadlines: RequestDeadlines<Waiting>;

  /**
   * @param steps - the steps, in order; the last one answers every request that reaches it
   * @param timeoutMs - how long a request may wait, from its first wait
   */
  constructor(steps: Steps<First, never>, timeoutMs: number) {
    this.steps = steps.list;
    const timedOut: ProblemOccurrence = {
      code: 'REQUEST_TIMEOUT',
      detail: `The request was not answered within ${timeoutMs} ms; a change it asked for may still complete.`,
      // The connection closes after the answer: a body still arriving is not read on.
      headers: { 'Retry-After': String(RETRY_AFTER_SECONDS), Connection: 'close' },
    };
    this.#deadlines = new RequestDeadlines(timeoutMs, (waiting) => {
      waiting.at.log.warn({ timeoutMs }, 'request timed out');
      this.#settle(waiting, waiting.at.problem(timedOut));
    });
  }

  /** The request's answer: at once when every step answers at once, else a promise of it. */
  run(request: First): Answering {
    const outcome = runSteps(this, request, undefined);
    // A run waits only through later(), whose answer is the request's promise.
    return isThenable(outcome) ? (outcome as Promise<Answer>) : answerOf(outcome);
  }

  /** A run ends at an answer, and at any value once its request was answered (its deadline). */
  isDone(value: StepValue, waiting: Waiting | undefined): boolean {
    return isAnswer(value) || waiting?.answered === true;
  }

  /** Goes on from step `at` once its outcome settles, under the request's deadline. */
  later(
    pending: Thenable<StepValue>,
    at: number,
    given: StepValue,
    waitedBefore: Waiting | undefined,
  ): Promise<Answer> {
    // What a step is given is what the one before it found: runSteps stops at an answer.
    const input = given as StepInput;
    const waiting = waitedBefore ?? this.#startWaiting(input);
    waiting.at = input;
    pending.then(
      (value) => {
        if (waiting.answered) return;
        const rest = isAnswer(value) ? value : runSteps(this, value, waiting, at + 1);
        // A step that waits again answers through the same promise.
        if (!isThenable(rest)) this.#settle(waiting, answerOf(rest));
      },
      (error: unknown) => this.#settle(waiting, input.failed(error)),
    );
    return waiting.answer;
  }

  /** A request's first wait: the promise of its answer, and its deadline running. */
  #startWaiting(at: StepInput): Waiting {
    const waiting = new Waiting(at);
    this.#deadlines.start(waiting);
    return waiting;
  }

  /** The first answer of a request that waited; later ones are dropped. */
  #settle(waiting: Waiting, answer: Answer): void {
    if (waiting.answered) return;
    waiting.answered = true;
    this.#deadlines.finish(waiting);
    waiting.settle(answer);
  }
}

/** The answer a run ended at; a list whose last step did not answer is a defect, a logged 500. */
function answerOf(outcome: StepValue): Answer {
  return isAnswer(outcome) ? outcome : outcome.failed(new Error('no step answered the request'));
}
