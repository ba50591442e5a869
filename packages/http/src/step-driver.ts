import { isThenable, type MaybeAsync, type Thenable } from '@workforce-kit/core';
import type { Answering, ApiAnswer } from './pipeline.js';
import { RETRY_AFTER_SECONDS } from './problems.js';
import { RequestDeadlines } from './request-deadlines.js';
import type { RequestState } from './request-state.js';

/**
 * One step of a request: it reads the request's state and answers the request (a problem, or the
 * result), or lets it go on (`undefined`), now or later.
 */
export type Step<State extends RequestState> = (
  request: State,
) => MaybeAsync<ApiAnswer | undefined>;

/** A request that waits on a step: the promise of its answer, which its first answer settles. */
class Waiting {
  answered = false;
  readonly answer: Promise<ApiAnswer>;
  settle!: (answer: ApiAnswer) => void;

  constructor(readonly request: RequestState) {
    this.answer = new Promise((resolve) => {
      this.settle = resolve;
    });
  }
}

/**
 * Runs a request through its steps, in order, in the spirit of hono's `compose`: synchronously
 * while each step answers at once, so that such a request is answered with no promise; from the
 * first step that returns a promise, the rest runs when it settles. A request that waits is
 * answered by a promise that never rejects: its first answer settles it (a later one is dropped),
 * a step that throws or rejects is a logged 500, and a request not answered within the timeout is
 * a 503 `REQUEST_TIMEOUT`, after which none of its steps runs (its change, if not started, never
 * starts).
 */
export class StepDriver<State extends RequestState> {
  readonly #steps: readonly Step<State>[];
  readonly #deadlines: RequestDeadlines<Waiting>;

  /**
   * @param steps - the steps, in order; the last one answers every request that reaches it
   * @param timeoutMs - how long a request may wait, from its first wait
   */
  constructor(steps: readonly Step<State>[], timeoutMs: number) {
    this.#steps = steps;
    this.#deadlines = new RequestDeadlines(timeoutMs, (waiting) => {
      const { request } = waiting;
      request.log.warn({ timeoutMs }, 'request timed out');
      this.#settle(
        waiting,
        request.problem({
          code: 'REQUEST_TIMEOUT',
          detail: `The request was not answered within ${timeoutMs} ms; a change it asked for may still complete.`,
          // The connection closes after the answer: a body still arriving is not read on.
          headers: { 'Retry-After': String(RETRY_AFTER_SECONDS), Connection: 'close' },
        }),
      );
    });
  }

  /** The request's answer: at once when every step answers at once, else a promise of it. */
  run(request: State): Answering {
    return this.#runFrom(request, 0, undefined);
  }

  #runFrom(request: State, first: number, waiting: Waiting | undefined): Answering {
    const steps = this.#steps;
    try {
      for (let at = first; at < steps.length; at += 1) {
        const outcome = (steps[at] as Step<State>)(request);
        if (outcome === undefined) continue;
        if (isThenable(outcome)) return this.#wait(request, outcome, at, waiting);
        return outcome;
      }
      throw new Error('no step answered the request');
    } catch (error) {
      return request.failed(error);
    }
  }

  /** Goes on from step `at` once its outcome settles, under the request's deadline. */
  #wait(
    request: State,
    outcome: Thenable<ApiAnswer | undefined>,
    at: number,
    waitedBefore: Waiting | undefined,
  ): Promise<ApiAnswer> {
    const waiting = waitedBefore ?? this.#startWaiting(request);
    outcome.then(
      (answer) => {
        if (waiting.answered) return;
        if (answer !== undefined) {
          this.#settle(waiting, answer);
          return;
        }
        const rest = this.#runFrom(request, at + 1, waiting);
        // A step that waits again answers through the same promise.
        if (!isThenable(rest)) this.#settle(waiting, rest);
      },
      (error: unknown) => this.#settle(waiting, request.failed(error)),
    );
    return waiting.answer;
  }

  /** A request's first wait: the promise of its answer, and its deadline running. */
  #startWaiting(request: State): Waiting {
    const waiting = new Waiting(request);
    this.#deadlines.start(waiting);
    return waiting;
  }

  /** The first answer of a request that waited; later ones are dropped. */
  #settle(waiting: Waiting, answer: ApiAnswer): void {
    if (waiting.answered) return;
    waiting.answered = true;
    this.#deadlines.finish(waiting);
    waiting.settle(answer);
  }
}
