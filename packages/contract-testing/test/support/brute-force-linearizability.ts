// The obvious, slow linearizability checker that `checkLinearizable` is held to: every sequence of
// the calls (each determinate call once, each indeterminate one once or not at all, Knossos's
// reading) is tried from every initial state; one fits when real time allows it (a call answered
// before another was sent comes first) and the model accepts each of its steps. No search, no
// memo, no pruning: a handful of calls at most.
import type { SequentialModel, TimedCall } from '../../src/linearizability.js';

/** What trying every order found. */
export interface BruteForceVerdict {
  readonly linearizable: boolean;
  /** The key of every state an order that fits ends in. */
  readonly finalKeys: ReadonlySet<string>;
}

/** Every sequence of distinct indices below `n`, of every length. */
function* sequences(n: number, prefix: number[] = []): Generator<readonly number[]> {
  yield prefix;
  for (let i = 0; i < n; i++) {
    if (prefix.includes(i)) continue;
    yield* sequences(n, [...prefix, i]);
  }
}

const completion = (call: TimedCall<unknown>) => call.completedAt ?? Number.POSITIVE_INFINITY;

/**
 * Whether real time allows `order` to be the start of a linearization: no call placed in it was
 * sent after a call placed later, or one not placed, had been answered.
 */
export function realTimeAllows<C>(
  history: readonly TimedCall<C>[],
  order: readonly number[],
): boolean {
  return order.every((index, position) => {
    const call = history[index] as TimedCall<C>;
    return history.every(
      (other, j) =>
        order.slice(0, position + 1).includes(j) || !(completion(other) < call.invokedAt),
    );
  });
}

/** The state after `order` from `initial`, or undefined when the model refuses a step. */
export function replay<S, C>(
  model: SequentialModel<S, C>,
  initial: S,
  history: readonly TimedCall<C>[],
  order: readonly number[],
): S | undefined {
  let state = initial;
  for (const index of order) {
    const call = history[index] as TimedCall<C>;
    const step = model.step(state, call.call, call.completedAt !== undefined);
    if (!step.ok) return undefined;
    state = step.next;
  }
  return state;
}

/**
 * Tries every order of `history` from every one of `initialStates`.
 *
 * @returns whether one fits, and the key of every state those that fit end in
 */
export function bruteForceLinearizable<S, C>(
  model: SequentialModel<S, C>,
  initialStates: readonly S[],
  history: readonly TimedCall<C>[],
): BruteForceVerdict {
  const finalKeys = new Set<string>();
  const required = history.flatMap((call, i) => (call.completedAt === undefined ? [] : [i]));
  for (const order of sequences(history.length)) {
    if (!required.every((i) => order.includes(i)) || !realTimeAllows(history, order)) continue;
    for (const initial of initialStates) {
      const end = replay(model, initial, history, order);
      if (end !== undefined) finalKeys.add(model.key(end));
    }
  }
  return { linearizable: finalKeys.size > 0, finalKeys };
}
