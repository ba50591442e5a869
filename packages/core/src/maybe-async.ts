import { type Err, type Result, ResultAsync } from 'neverthrow';

/**
 * A `Result` now, or a `ResultAsync` when the answer is not at hand: what a port returns (the
 * memory store answers at once, a database later) and what a use case returns in turn. A caller
 * that does not care which awaits it: `await` gives the `Result` of either.
 *
 * @example
 * ```ts
 * const found: MaybeAsync<Employee | null, StorageError> = store.employees.find(restaurant, id);
 * const result = await found; // a Result, whichever it was
 * ```
 */
export type MaybeAsync<T, E> = Result<T, E> | ResultAsync<T, E>;

/**
 * `answer.andThen(next)`, for an answer now or later: `next` runs at once on a value at hand (no
 * promise), or when a `ResultAsync` settles; an error is passed on as it is. What `next` returns,
 * now or later, is the result.
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
  answer: MaybeAsync<T, E>,
  next: (value: T) => MaybeAsync<U, F>,
): MaybeAsync<U, E | F> {
  if (isThenable(answer)) return answer.andThen(next);
  // An Err holds no value of T: it is the same error as a Result of U.
  return answer.isOk() ? next(answer.value) : (answer as unknown as Err<U, E>);
}

/**
 * Goes on with the `Result` an answer settles to, an error included, now or later: for a step
 * that handles an error itself (a version conflict it retries).
 *
 * @param answer - a port's answer
 * @param next - what to do with its `Result`
 * @returns `next`'s result
 * @example
 * ```ts
 * const stored = settled(employees.write(change), (written) =>
 *   written.isErr() && written.error.type === 'VersionConflict' ? retry() : written,
 * );
 * ```
 */
export function settled<T, E, U, F>(
  answer: MaybeAsync<T, E>,
  next: (result: Result<T, E>) => MaybeAsync<U, F>,
): MaybeAsync<U, F> {
  if (!isThenable(answer)) return next(answer);
  const rest = Promise.resolve(answer).then(next) as Promise<Result<U, F>>;
  return new ResultAsync(rest);
}

/**
 * Whether an answer is still to come: a thenable (a `ResultAsync` of any copy of neverthrow, or a
 * promise), not a `Result`. A store of a user's own may use another copy of neverthrow than ours,
 * so this does not ask `instanceof`.
 */
export function isThenable<T, E>(answer: MaybeAsync<T, E>): answer is ResultAsync<T, E>;
export function isThenable(value: unknown): value is PromiseLike<unknown>;
export function isThenable(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * A {@link MaybeAsync} as a `ResultAsync`, for code written for one (`.andThen` of a
 * `ResultAsync`, `ResultAsync.combine`).
 *
 * @example
 * ```ts
 * const later = toResultAsync(unarchiveEmployee(deps, command)).map(({ record }) => record.guid);
 * ```
 */
export function toResultAsync<T, E>(answer: MaybeAsync<T, E>): ResultAsync<T, E> {
  return answer instanceof ResultAsync ? answer : new ResultAsync(Promise.resolve(answer));
}
