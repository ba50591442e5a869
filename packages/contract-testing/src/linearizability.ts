// Whether a history of concurrent calls on one object is linearizable: is there an order of the
// calls, one at a time, that respects real time (a call that completed before another was invoked
// comes first) and in which the model accepts every answer? The search is Wing and Gong's, with
// Lowe's memoisation of (calls done, model state): a node already explored is never explored again,
// which keeps a history of a few overlapping calls at a time linear in its length. A call whose
// answer does not say whether it took effect (indeterminate) completes at infinity: it may be put
// anywhere after its invocation, any answer accepted, or nowhere (taking effect after every other
// call and not at all look the same in the history). The work is bounded: past `maxSteps` model
// steps a history no order was found for is undecided, never passed; one an order was found for is
// linearizable, its final states those found by then.

/** One call of a history, as the checker sees it. */
export interface TimedCall<C> {
  readonly call: C;
  /** When it was sent (a monotonic clock, ms): at or before the target could see it. */
  readonly invokedAt: number;
  /** When its answer was in (ms): at or after its effect; undefined when indeterminate. */
  readonly completedAt: number | undefined;
}

/**
 * What the model says of one call in one state, or of one part of it (a date the answer shows):
 * accepted, with what follows (the state after it, or the part's new value), or refused, with why
 * in words made when asked.
 */
export type ModelStep<T> =
  | { readonly ok: true; readonly next: T }
  | { readonly ok: false; readonly why: () => string };

/** The sequential model the history is held to. */
export interface SequentialModel<S, C> {
  /**
   * The call applied to `state`: with a determinate call, whether the model gives its answer (and
   * the state after it); with an indeterminate one, the state after it took effect (always ok).
   */
  step(state: S, call: C, determinate: boolean): ModelStep<S>;
  /** A string equal for equal states: the memo's key. */
  key(state: S): string;
}

/** Options of {@link checkLinearizable}. */
export interface CheckOptions {
  /** The most model steps before the history is undecided. @default 100000 */
  readonly maxSteps?: number;
  /**
   * Explore every order, to give every state the history may end in (`finalStates`); otherwise
   * the search ends at the first order found. @default false
   */
  readonly finalStates?: boolean;
}

/** Why no call can come next at the deepest point the search reached. */
export interface Blocked {
  /** The call's index in the history. */
  readonly index: number;
  readonly why: string;
}

/** The outcome of {@link checkLinearizable}. */
export type Linearizability<S> =
  | {
      readonly kind: 'linearizable';
      /** One order that fits, as indices in the history (indeterminate calls left out may be). */
      readonly order: readonly number[];
      /** With `finalStates`: every state an order that fits ends in (deduplicated). */
      readonly finalStates: readonly S[];
      /**
       * Whether `finalStates` holds every such state: with `finalStates`, unless the bound on
       * the steps ended the search after an order was found (they are then those found by then).
       */
      readonly finalStatesComplete: boolean;
      readonly steps: number;
    }
  | {
      readonly kind: 'not-linearizable';
      /** The longest order the model accepted, as indices in the history. */
      readonly deepest: readonly number[];
      /** The state after it. */
      readonly state: S;
      /** Each call that real time allowed next there, and why the model refused its answer. */
      readonly blocked: readonly Blocked[];
      readonly steps: number;
    }
  | { readonly kind: 'undecided'; readonly steps: number };

/** The default bound on model steps: far above what a case of the concurrent group takes. */
export const DEFAULT_MAX_STEPS = 100_000;

class Bits {
  readonly words: Uint32Array;
  constructor(size: number, from?: Uint32Array) {
    this.words = from === undefined ? new Uint32Array((size + 31) >>> 5) : from.slice();
  }
  has(i: number): boolean {
    return ((this.words[i >>> 5] ?? 0) & (1 << (i & 31))) !== 0;
  }
  with(i: number): Bits {
    const next = new Bits(0, this.words);
    next.words[i >>> 5] = (next.words[i >>> 5] ?? 0) | (1 << (i & 31));
    return next;
  }
  key(): string {
    return this.words.join(',');
  }
}

/** A node of the search: the calls done (the last one, and the node before), the state. */
interface Frame<S> {
  readonly done: Bits;
  readonly state: S;
  readonly parent: Frame<S> | undefined;
  /** The call done last, in the history; -1 at the start. */
  readonly index: number;
  readonly depth: number;
  readonly determinateDone: number;
  readonly candidates: readonly number[];
  next: number;
  /** The candidates the model refused here, and why. */
  readonly refused: { readonly index: number; readonly why: () => string }[];
}

/** The calls done to reach `frame`, in order. */
function orderOf<S>(frame: Frame<S>): number[] {
  const order: number[] = [];
  for (let at: Frame<S> | undefined = frame; at !== undefined && at.index >= 0; at = at.parent) {
    order.push(at.index);
  }
  return order.reverse();
}

/**
 * One search of a history, over every initial state: the memo of the nodes seen, the orders that
 * fit (the first, and the final states), the deepest dead end, and the steps taken.
 */
class OrderSearch<S, C> {
  readonly #model: SequentialModel<S, C>;
  readonly #history: readonly TimedCall<C>[];
  /** When each call completed; an indeterminate one at infinity. */
  readonly #completed: readonly number[];
  readonly #determinate: readonly boolean[];
  readonly #determinateCount: number;
  readonly #maxSteps: number;
  readonly #allOrders: boolean;
  readonly #seen = new Set<string>();
  readonly #finals = new Map<string, S>();
  #steps = 0;
  /** Set when the bound on the steps ended the search. */
  #bounded = false;
  /** The first node where every determinate call is done: an order that fits. */
  #first: Frame<S> | undefined;
  /** The deepest node from which no call could go on. */
  #deepest: Frame<S> | undefined;

  constructor(
    model: SequentialModel<S, C>,
    history: readonly TimedCall<C>[],
    maxSteps: number,
    allOrders: boolean,
  ) {
    this.#model = model;
    this.#history = history;
    this.#completed = history.map((h) => h.completedAt ?? Number.POSITIVE_INFINITY);
    this.#determinate = history.map((h) => h.completedAt !== undefined);
    this.#determinateCount = this.#determinate.filter(Boolean).length;
    this.#maxSteps = maxSteps;
    this.#allOrders = allOrders;
  }

  /** Whether the search is over: an order found, and no more wanted. */
  get done(): boolean {
    return this.#first !== undefined && !this.#allOrders;
  }

  /**
   * Searches the orders from `initial`, depth first, each node once; false when the bound on
   * the steps is reached.
   */
  explore(initial: S): boolean {
    const stack: Frame<S>[] = [];
    this.#enter(stack, undefined, -1, initial);
    while (stack.length > 0 && !this.done) {
      const frame = stack[stack.length - 1] as Frame<S>;
      const index = frame.candidates[frame.next];
      if (index === undefined) {
        stack.pop();
        // A dead end: the deepest one explains the history best.
        if (frame.refused.length > 0 && frame.depth > (this.#deepest?.depth ?? -1)) {
          this.#deepest = frame;
        }
        continue;
      }
      frame.next++;
      if (this.#steps === this.#maxSteps) {
        this.#bounded = true;
        return false;
      }
      this.#steps++;
      const call = (this.#history[index] as TimedCall<C>).call;
      const step = this.#model.step(frame.state, call, this.#determinate[index] as boolean);
      if (step.ok) this.#enter(stack, frame, index, step.next);
      else frame.refused.push({ index, why: step.why });
    }
    return true;
  }

  /**
   * The verdict once every initial state is explored, an order found, or the bound reached: an
   * order found is never undecided.
   */
  verdict(initialStates: readonly S[]): Linearizability<S> {
    const steps = this.#steps;
    if (this.#first !== undefined) {
      return {
        kind: 'linearizable',
        order: orderOf(this.#first),
        finalStates: [...this.#finals.values()],
        finalStatesComplete: this.#allOrders && !this.#bounded,
        steps,
      };
    }
    if (this.#bounded) return { kind: 'undecided', steps };
    const deepest = this.#deepest;
    if (deepest === undefined) {
      const state = initialStates[0] as S;
      return { kind: 'not-linearizable', deepest: [], state, blocked: [], steps };
    }
    return {
      kind: 'not-linearizable',
      deepest: orderOf(deepest),
      state: deepest.state,
      blocked: deepest.refused.map((r) => ({ index: r.index, why: r.why() })),
      steps,
    };
  }

  /** Pushes the node of `index` done from `parent` into `state`, unless the memo has seen it. */
  #enter(stack: Frame<S>[], parent: Frame<S> | undefined, index: number, state: S): void {
    const done = parent === undefined ? new Bits(this.#history.length) : parent.done.with(index);
    const stateKey = this.#model.key(state);
    const key = `${done.key()}|${stateKey}`;
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const frame: Frame<S> = {
      done,
      state,
      parent,
      index,
      depth: parent === undefined ? 0 : parent.depth + 1,
      determinateDone:
        (parent?.determinateDone ?? 0) + (index >= 0 && this.#determinate[index] ? 1 : 0),
      candidates: this.#candidatesOf(done),
      next: 0,
      refused: [],
    };
    if (frame.determinateDone === this.#determinateCount) {
      this.#first ??= frame;
      this.#finals.set(stateKey, state);
    }
    stack.push(frame);
  }

  /** The calls real time lets come next: invoked no later than the earliest completion left. */
  #candidatesOf(done: Bits): number[] {
    const n = this.#history.length;
    let earliest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const at = this.#completed[i] as number;
      if (at < earliest && !done.has(i)) earliest = at;
    }
    const list: number[] = [];
    for (let i = 0; i < n; i++) {
      if (!done.has(i) && (this.#history[i] as TimedCall<C>).invokedAt <= earliest) list.push(i);
    }
    return list;
  }
}

/**
 * Searches for an order of `history` that respects real time and that `model` accepts, from any
 * of `initialStates`.
 *
 * @param model - the sequential model: a step per call, a key per state
 * @param initialStates - the states the object may be in before the first call
 * @param history - the calls, with their invocation and completion times
 * @param options - the bound on the work, and whether every final state is wanted
 * @returns linearizable (an order, and the final states when asked), not linearizable (the
 *   deepest order found and why nothing fits after it), or undecided (the bound reached before
 *   any order was found)
 * @example
 * ```ts
 * const verdict = checkLinearizable(registerModel, [0], history, { maxSteps: 10_000 });
 * if (verdict.kind === 'not-linearizable') console.log(verdict.blocked);
 * ```
 */
export function checkLinearizable<S, C>(
  model: SequentialModel<S, C>,
  initialStates: readonly S[],
  history: readonly TimedCall<C>[],
  { maxSteps = DEFAULT_MAX_STEPS, finalStates = false }: CheckOptions = {},
): Linearizability<S> {
  const search = new OrderSearch(model, history, maxSteps, finalStates);
  for (const initial of initialStates) {
    if (!search.explore(initial) || search.done) break;
  }
  return search.verdict(initialStates);
}
