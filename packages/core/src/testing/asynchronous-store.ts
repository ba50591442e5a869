import { type Result, ResultAsync } from 'neverthrow';
import type { MaybeAsync } from '../maybe-async.js';
import type { WorkforceStore } from '../ports.js';

/**
 * Runs a call in a later microtask and answers with a `ResultAsync`: the call takes effect after
 * its caller has moved on, as a database's would, so concurrent callers interleave.
 */
function later<A extends unknown[], T, E>(
  call: (...args: A) => MaybeAsync<Result<T, E>>,
): (...args: A) => ResultAsync<T, E> {
  return (...args) => new ResultAsync(Promise.resolve().then(() => call(...args)));
}

/**
 * A store that answers every call asynchronously, as most databases do: each call of `store` runs
 * in a later microtask, and its answer is a `ResultAsync`. The conformance suite runs the memory
 * store (which answers at once) both as it is and wrapped in this, with the same outcomes, so that
 * the use cases are shown to hold on either kind of store. `close` is the store's own.
 *
 * @param store - the store to wrap (the memory store, say)
 * @returns the same store, answering later
 * @example
 * ```ts
 * describeStoreConformance('memory, answering asynchronously', () => asynchronousStore(createMemoryStore()));
 * ```
 */
export function asynchronousStore(store: WorkforceStore): WorkforceStore {
  const { employees, shifts, restaurants, events } = store;
  return {
    employees: {
      find: later((restaurant, id) => employees.find(restaurant, id)),
      write: later((change) => employees.write(change)),
    },
    shifts: {
      find: later((restaurant, id) => shifts.find(restaurant, id)),
      write: later((change) => shifts.write(change)),
    },
    restaurants: { findByGuid: later((guid) => restaurants.findByGuid(guid)) },
    events: { list: later((restaurant) => events.list(restaurant)) },
    seed: later((records) => store.seed(records)),
    ping: later(() => store.ping()),
    close: () => store.close(),
  };
}
