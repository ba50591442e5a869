import { err, type Result, ResultAsync } from 'neverthrow';
import { type VersionConflict, type WriteContention, writeContention } from '../errors.js';

function isVersionConflict(error: { readonly type: string }): error is VersionConflict {
  return error.type === 'VersionConflict';
}

/**
 * Runs `attempt` (read, decide, write conditionally) until it settles with anything but a
 * version conflict, at most `maxAttempts` times. Each attempt re-reads, so the decision is made
 * again on the state that won the race.
 *
 * (Built on `then` rather than `ResultAsync.orElse`, which wraps every call in a generator-based
 * awaiter: this runs on every write.)
 */
export function retryOnVersionConflict<T, E extends { readonly type: string }>(
  subject: string,
  maxAttempts: number,
  attempt: () => ResultAsync<T, E | VersionConflict>,
  attemptNumber = 1,
): ResultAsync<T, Exclude<E, VersionConflict> | WriteContention> {
  type Settled = Result<T, Exclude<E, VersionConflict> | WriteContention>;
  const settled = attempt().then((result): Settled | PromiseLike<Settled> => {
    if (result.isOk() || !isVersionConflict(result.error)) return result as Settled;
    if (attemptNumber >= maxAttempts) return err(writeContention(subject, attemptNumber));
    return retryOnVersionConflict(subject, maxAttempts, attempt, attemptNumber + 1);
  });
  // ResultAsync.then is typed PromiseLike but returns its underlying native promise.
  return new ResultAsync(settled as Promise<Settled>);
}
