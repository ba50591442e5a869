import { err, type Result, ResultAsync } from 'neverthrow';

/**
 * A value now, or a promise of it: what a step that may have to wait answers. The ports answer a
 * `MaybeAsync<Result<T, E>>` (a neverthrow `Result` at once from the memory store, a `ResultAsync`
 * or any promise of a `Result` from a database), and so do the use cases; the HTTP pipeline's
 * steps answer theirs the same way. Go on from one with {@link whenReady}; a caller that does not
 * care which it is awaits it.
 *
 * @example
 * ```ts
 * const found: MaybeAsync<Result<Employee | null, StorageError>> = store.employees.find(restaurant, id);
 * const result = await found; // a Result, whichever it was
 * ```
 */
export type MaybeAsync<T> = T | Thenable<T>;

/**
 * The "later" of {@link MaybeAsync}: a promise, or any object with a `then` (a neverthrow
 * `ResultAsync`, of any copy of neverthrow). TypeScript's `PromiseLike` would refuse a
 * `ResultAsync` whose error type is narrower than the one asked for (its `then` takes no `null`),
 * which a store's answer often is.
 */
export interface Thenable<T> {
  /** Calls `onValue` with the value once it is there, or `onFailure` with why it is not. */
  then<U, V = never>(
    onValue: (value: T) => U | PromiseLike<U>,
    onFailure?: (reason: unknown) => V | PromiseLike<V>,
  ): PromiseLike<U | V>;
}

/**
 * Goes on from a value now or later: calls `next` with it at once when it is at hand (no promise,
 * no microtask), or once it settles. A rejection passes on as it is.
 *
 * @param value - the value, or a promise of it
 * @param next - what to do with the value; may itself answer now or later
 * @returns `next`'s answer, now when `value` and `next`'s answer are at hand, else a promise
 * @example
 * ```ts
 * const name = whenReady(store.employees.find(restaurant, id), (found) =>
 *   found.map((employee) => employee?.firstName),
 * );
 * ```
 */
export function whenReady<T, U>(
  value: MaybeAsync<T>,
  next: (value: T) => MaybeAsync<U>,
): MaybeAsync<U>;
/**
 * Goes on from a value now or later, as above, handing `context` to `next` beside the value: a
 * caller on a hot path passes what `next` needs rather than making a closure per call.
 *
 * @param value - the value, or a promise of it
 * @param next - what to do with the value and the context
 * @param context - passed to `next` as its second argument
 * @returns `next`'s answer, now when `value` and `next`'s answer are at hand, else a promise
 * @example
 * ```ts
 * const answer = whenReady(verifier.verify(token), permit, request);
 * ```
 */
export function whenReady<T, U, C>(
  value: MaybeAsync<T>,
  next: (value: T, context: C) => MaybeAsync<U>,
  context: C,
): MaybeAsync<U>;
export function whenReady<T, U, C>(
  value: MaybeAsync<T>,
  next: (value: T, context: C | undefined) => MaybeAsync<U>,
  context?: C,
): MaybeAsync<U> {
  return isThenable(value) ? later(value, next, context) : next(value, context);
}

/** `next` once `value` settles: apart, so that a call with a value at hand makes no closure. */
function later<T, U, C>(
  value: Thenable<T>,
  next: (value: T, context: C) => MaybeAsync<U>,
  context: C,
): MaybeAsync<U> {
  return value.then((settled) => next(settled, context));
}

/**
 * `result.andThen(next)` for a `Result` now or later: `next` runs on a value, at once when it is at
 * hand, and an error is passed on as it is. It goes on as {@link whenReady} does.
 *
 * @param answer - a port's (or a use case's) answer
 * @param next - what to do with its value
 * @returns `next`'s result, or the answer's error
 * @example
 * ```ts
 * const name = andThen(employees.find(restaurant, id), (employee) =>
 *   employee === null ? err(employeeNotFound(restaurant, id)) : ok(employee.firstName),
 * );
 * ```
 */
export function andThen<T, E, U, F>(
  answer: MaybeAsync<Result<T, E>>,
  next: (value: T) => MaybeAsync<Result<U, F>>,
): MaybeAsync<Result<U, E | F>>;
/**
 * `result.andThen(next)` for a `Result` now or later, as above, handing `context` to `next` beside
 * the value: a caller on a hot path passes what `next` needs rather than making a closure per call.
 *
 * @param answer - a port's (or a use case's) answer
 * @param next - what to do with its value and the context
 * @param context - passed to `next` as its second argument
 * @returns `next`'s result, or the answer's error
 * @example
 * ```ts
 * const visible = andThen(restaurants.findByGuid(guid), visibleRestaurant, query);
 * ```
 */
export function andThen<T, E, U, F, C>(
  answer: MaybeAsync<Result<T, E>>,
  next: (value: T, context: C) => MaybeAsync<Result<U, F>>,
  context: C,
): MaybeAsync<Result<U, E | F>>;
export function andThen<T, E, U, F, C>(
  answer: MaybeAsync<Result<T, E>>,
  next: (value: T, context: C | undefined) => MaybeAsync<Result<U, F>>,
  context?: C,
): MaybeAsync<Result<U, E | F>> {
  return isThenable(answer) ? andThenLater(answer, next, context) : onValue(answer, next, context);
}

/** The step of {@link andThen}: `next` on a value; an error passed on in a `Result` of `U`. */
function onValue<T, E, U, F, C>(
  result: Result<T, E>,
  next: (value: T, context: C) => MaybeAsync<Result<U, F>>,
  context: C,
): MaybeAsync<Result<U, E | F>> {
  return result.isOk() ? next(result.value, context) : err(result.error);
}

/** {@link andThen} once `answer` settles: apart, so that a call with a value at hand makes no closure. */
function andThenLater<T, E, U, F, C>(
  answer: Thenable<Result<T, E>>,
  next: (value: T, context: C) => MaybeAsync<Result<U, F>>,
  context: C,
): MaybeAsync<Result<U, E | F>> {
  return answer.then((result) => onValue(result, next, context));
}

/**
 * A list of steps that {@link runSteps} runs in turn: each step is given the value the step before
 * it gave (the first, the run's value) and the run's context, and gives the next value, now or
 * later.
 */
export interface StepList<T, C> {
  /** The steps, in order. */
  readonly steps: readonly ((value: T, context: C) => MaybeAsync<T>)[];
  /** Whether a step's value ends the run: the steps after it are not run. */
  isDone(value: T, context: C): boolean;
  /**
   * Optional: how to go on from step `at`, whose value is still to come; `given` is what that step
   * was given. Without it, the run goes on from the step after `at` once the value settles, and a
   * rejection passes on as it is.
   */
  later?(pending: Thenable<T>, at: number, given: T, context: C): MaybeAsync<T>;
}

/**
 * Runs a list of steps in turn from step `first`, as hono's `compose` runs middleware: each step
 * is given the value the one before it gave, until a value ends the run (`isDone`) or the list
 * does. It goes on at once while each step answers at once (no promise, no microtask), and from
 * the first step that answers later, once that answer settles.
 *
 * @param list - the steps, and what ends the run
 * @param value - what the first step is given
 * @param context - handed to every step beside its value, so that a hot path makes no closure
 * @param first - the step to start from (0, the first, unless going on from a wait)
 * @returns the value that ended the run, or the last step's: now when every step answered at once,
 *   else a promise of it
 * @example
 * ```ts
 * const checkout: StepList<Order, Logger> = {
 *   steps: [priceOrder, (order, log) => inventory.reserve(order, log)], // each now or later
 *   isDone: (order) => order.refusal !== undefined,
 * };
 * const order = runSteps(checkout, draft, logger); // an Order, or a promise of one
 * ```
 */
export function runSteps<T, C>(
  list: StepList<T, C>,
  value: T,
  context: C,
  first = 0,
): MaybeAsync<T> {
  const { steps } = list;
  let current = value;
  for (let at = first; at < steps.length; at += 1) {
    const step = steps[at] as (value: T, context: C) => MaybeAsync<T>;
    const next = step(current, context);
    if (isThenable(next)) {
      return list.later === undefined
        ? goOnLater(list, next, at, context)
        : list.later(next, at, current, context);
    }
    if (list.isDone(next, context)) return next;
    current = next;
  }
  return current;
}

/** The rest of a run once step `at`'s value settles: apart, so that a run at once makes no closure. */
function goOnLater<T, C>(
  list: StepList<T, C>,
  pending: Thenable<T>,
  at: number,
  context: C,
): MaybeAsync<T> {
  return pending.then((value) =>
    list.isDone(value, context) ? value : runSteps(list, value, context, at + 1),
  );
}

/**
 * Whether a value is still to come: a thenable (a promise, or a `ResultAsync` of any copy of
 * neverthrow), not a value at hand. A store of a user's own may use another copy of neverthrow
 * than ours, so this does not ask `instanceof`.
 */
export function isThenable<T>(value: MaybeAsync<T>): value is Thenable<T>;
export function isThenable(value: unknown): value is Thenable<unknown>;
export function isThenable(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * A `Result` now or later as a `ResultAsync`, for code written for one (`.andThen` of a
 * `ResultAsync`, `ResultAsync.combine`).
 *
 * @example
 * ```ts
 * const later = toResultAsync(unarchiveEmployee(deps, command)).map(({ record }) => record.guid);
 * ```
 */
export function toResultAsync<T, E>(answer: MaybeAsync<Result<T, E>>): ResultAsync<T, E> {
  // Promise.resolve adopts a thenable (another copy of neverthrow's ResultAsync among them).
  return answer instanceof ResultAsync ? answer : new ResultAsync(Promise.resolve(answer));
}
