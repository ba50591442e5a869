import { type Result, ResultAsync } from 'neverthrow';
import type { MaybeAsync } from '../maybe-async.js';
import type { WorkforceStore } from '../ports.js';

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await turn();
}

interface Waits {
  readonly before: () => Promise<void>;
  readonly after?: () => Promise<void>;
}

/**
 * How the conformance suite defers the calls it makes to a store, so that concurrent callers
 * interleave their reads and writes even on a store that answers at once: what to wait before a
 * call, and before its answer is given, given where the shuffled turns' counts come from.
 * - `microtask`: each call runs in a later microtask (a promise job);
 * - `event-loop turn`: each call runs in a later turn of the event loop (`setImmediate`), and its
 *   answer comes back one turn after it, as a database's answer comes back over a socket;
 * - `shuffled turns`: each call, and each answer, waits 0 to 3 turns, as `turnCount` says (at
 *   random, or from a seed), so that concurrent calls reach the store, and their answers their
 *   callers, out of the order they were made in.
 */
const WAITS = {
  microtask: () => ({ before: () => Promise.resolve() }),
  'event-loop turn': () => ({ before: turn, after: turn }),
  'shuffled turns': (turnCount: () => number) => ({
    before: () => turns(turnCount()),
    after: () => turns(turnCount()),
  }),
} as const satisfies Record<string, (turnCount: () => number) => Waits>;

/** One of the ways of {@link WAITS}. */
export type Deferral = keyof typeof WAITS;

/** 0 to 3 turns, at random. */
const randomTurns = () => Math.floor(Math.random() * 4);

/**
 * A store whose every call (but `close`) runs later, as `deferral` says, and answers with a
 * `ResultAsync`. A call that throws, which a store never does, fails with a message naming it.
 *
 * @param store - the store to wrap
 * @param deferral - how long each call and its answer wait
 * @param turnCount - with `shuffled turns`, the turns of each wait, 0 to 3 (the conformance suite
 *   draws them from its seed, so that a run is the same again with it): at random by default
 * @returns the same store, answering later
 */
export function deferredStore(
  store: WorkforceStore,
  deferral: Deferral,
  turnCount: () => number = randomTurns,
): WorkforceStore {
  const { before, after }: Waits = WAITS[deferral](turnCount);
  const later =
    <A extends unknown[], T, E>(method: string, call: (...args: A) => MaybeAsync<Result<T, E>>) =>
    (...args: A): ResultAsync<T, E> =>
      new ResultAsync(
        (async () => {
          await before();
          let answer: Result<T, E>;
          try {
            answer = await call(...args);
          } catch (error) {
            throw new Error(
              `${method} threw ${String(error)}: a store answers a failure with an error (StorageUnavailable), and never throws`,
              { cause: error },
            );
          }
          await after?.();
          return answer;
        })(),
      );
  const { employees, shifts, restaurants, events } = store;
  return {
    employees: {
      find: later('employees.find', (restaurant, id) => employees.find(restaurant, id)),
      write: later('employees.write', (change) => employees.write(change)),
    },
    shifts: {
      find: later('shifts.find', (restaurant, id) => shifts.find(restaurant, id)),
      write: later('shifts.write', (change) => shifts.write(change)),
    },
    restaurants: {
      findByGuid: later('restaurants.findByGuid', (guid) => restaurants.findByGuid(guid)),
    },
    events: { list: later('events.list', (restaurant) => events.list(restaurant)) },
    seed: later('seed', (records) => store.seed(records)),
    ping: later('ping', () => store.ping()),
    close: () => store.close(),
  };
}

/**
 * A store that answers every call asynchronously, as most databases do: each call of `store` runs
 * in a later microtask, and its answer is a `ResultAsync`. The conformance suite needs no such
 * wrapper (it defers its own calls in its race tests); this one is for tests of a host that
 * should see a store answer later.
 *
 * @param store - the store to wrap (the memory store, say)
 * @returns the same store, answering later
 * @example
 * ```ts
 * import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
 *
 * const router = createRouter({ store: asynchronousStore(createMemoryStore(seed)), auth: createJwtVerifier({ hs256Secret }) });
 * ```
 */
export function asynchronousStore(store: WorkforceStore): WorkforceStore {
  return deferredStore(store, 'microtask');
}
