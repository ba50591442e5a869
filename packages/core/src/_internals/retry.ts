import { errAsync, type ResultAsync } from 'neverthrow';
import { type VersionConflict, type WriteContention, writeContention } from '../errors.js';

function isVersionConflict(error: { readonly type: string }): error is VersionConflict {
  return error.type === 'VersionConflict';
}

/**
 * Runs `attempt` (read, decide, write conditionally) until it settles with anything but a
 * version conflict, at most `maxAttempts` times. Each attempt re-reads, so the decision is made
 * again on the state that won the race.
 */
export function retryOnVersionConflict<T, E extends { readonly type: string }>(
  subject: string,
  maxAttempts: number,
  attempt: () => ResultAsync<T, E | VersionConflict>,
  attemptNumber = 1,
): ResultAsync<T, Exclude<E, VersionConflict> | WriteContention> {
  return attempt().orElse((error) => {
    if (!isVersionConflict(error)) return errAsync(error as Exclude<E, VersionConflict>);
    if (attemptNumber >= maxAttempts) return errAsync(writeContention(subject, attemptNumber));
    return retryOnVersionConflict(subject, maxAttempts, attempt, attemptNumber + 1);
  });
}
