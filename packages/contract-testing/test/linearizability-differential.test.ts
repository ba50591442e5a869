// The checker proven against the obvious one: on small random histories, `checkLinearizable`
// (Wing and Gong's search, Lowe's memo) gives the verdict of a checker that tries every order
// (support/brute-force-linearizability.ts), and every state the orders that fit end in. Two models:
// the kit's own record model, and a register with compare-and-set, small enough to reach many
// more orders. The histories come from executions of a correct object (linearizable), some with
// one answer or one time changed (mostly not), and from answers drawn at random; with calls that
// never answered (indeterminate: they took effect at any time after they were sent, or never) and
// several initial states (a live target). Under any step bound, a history for which the search
// found an order is never undecided.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkLinearizable, type SequentialModel, type TimedCall } from '../src/linearizability.js';
import {
  type ChangeAnswer,
  type DateSlot,
  type RecordCall,
  type RecordModelState,
  recordModel,
  UNKNOWN_DATE,
} from '../src/record-model.js';
import {
  bruteForceLinearizable,
  realTimeAllows,
  replay,
} from './support/brute-force-linearizability.js';

/** A history to check: the initial states the object may be in, and its calls. */
interface Checked<S, C> {
  readonly initialStates: readonly S[];
  readonly history: readonly TimedCall<C>[];
  /** Made by a correct object, unchanged: it must be linearizable. */
  readonly correct: boolean;
}

/** When a call was sent and answered, and when it took effect (if it did). */
interface Timing {
  readonly invokedAt: number;
  /** Undefined: indeterminate. */
  readonly completedAt: number | undefined;
  /** When it took effect; undefined: never (an indeterminate call only). */
  readonly effectAt: number | undefined;
}

/**
 * The timing of one call: determinate, in effect within its call; or indeterminate, in effect at
 * any time after it was sent (after other calls' answers too), or never.
 */
const timingArb: fc.Arbitrary<Timing> = fc
  .record({
    invokedAt: fc.nat({ max: 8 }),
    length: fc.nat({ max: 6 }),
    at: fc.nat({ max: 12 }),
    indeterminate: fc.nat({ max: 3 }).map((n) => n === 0),
    tookEffect: fc.boolean(),
  })
  .map(({ invokedAt, length, at, indeterminate, tookEffect }) =>
    indeterminate
      ? { invokedAt, completedAt: undefined, effectAt: tookEffect ? invokedAt + at : undefined }
      : { invokedAt, completedAt: invokedAt + length, effectAt: invokedAt + (at % (length + 1)) },
  );

/** The indices of the calls that took effect, in the order they did. */
const effectOrder = (timings: readonly Timing[]) =>
  timings
    .flatMap((t, i) => (t.effectAt === undefined ? [] : [[t.effectAt, i] as const]))
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .map(([, i]) => i);

/** One change to a history: which call, and its answer (`earlier` 0) or its answer's time. */
interface Mutation {
  readonly call: number;
  readonly answer: number;
  readonly earlier: number;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  call: fc.nat(),
  answer: fc.nat(),
  earlier: fc.nat({ max: 6 }),
});

/** A call's answer time moved earlier (not before it was sent), when it has one. */
function answeredEarlier<C>(call: TimedCall<C>, by: number): TimedCall<C> {
  if (call.completedAt === undefined) return call;
  return { ...call, completedAt: Math.max(call.invokedAt, call.completedAt - by) };
}

// A register of 0 to 2 with compare-and-set: the smallest object whose answers depend on order.
type RegisterCall =
  | { readonly op: 'write'; readonly value: number }
  | { readonly op: 'read'; readonly value: number }
  | { readonly op: 'cas'; readonly from: number; readonly to: number; readonly swapped: boolean };

const register: SequentialModel<number, RegisterCall> = {
  key: String,
  step(state, call, determinate) {
    const refused = { ok: false, why: () => `${call.op} in state ${state}` } as const;
    switch (call.op) {
      case 'write':
        return { ok: true, next: call.value };
      case 'read':
        return !determinate || call.value === state ? { ok: true, next: state } : refused;
      case 'cas': {
        const swaps = state === call.from;
        if (determinate && call.swapped !== swaps) return refused;
        return { ok: true, next: swaps ? call.to : state };
      }
      default: {
        const unknown: never = call;
        return unknown;
      }
    }
  },
};

const registerOpArb = fc.oneof(
  fc.record({ op: fc.constant('write' as const), value: fc.nat({ max: 2 }) }),
  fc.record({ op: fc.constant('read' as const), value: fc.nat({ max: 2 }) }),
  fc.record({
    op: fc.constant('cas' as const),
    from: fc.nat({ max: 2 }),
    to: fc.nat({ max: 2 }),
    swapped: fc.boolean(),
  }),
);

/** The register's calls answered as a correct register answers them, in `timings`' effect order. */
function executeRegister(
  initial: number,
  ops: readonly RegisterCall[],
  timings: readonly Timing[],
): RegisterCall[] {
  const answered = [...ops];
  let state = initial;
  for (const i of effectOrder(timings)) {
    const op = ops[i] as RegisterCall;
    if (op.op === 'write') state = op.value;
    else if (op.op === 'read') answered[i] = { ...op, value: state };
    else {
      answered[i] = { ...op, swapped: state === op.from };
      if (state === op.from) state = op.to;
    }
  }
  return answered;
}

function mutateRegister(call: RegisterCall, pick: number): RegisterCall {
  if (call.op === 'read') return { ...call, value: (call.value + 1 + (pick % 2)) % 3 };
  if (call.op === 'cas') return { ...call, swapped: !call.swapped };
  return { ...call, value: (call.value + 1) % 3 };
}

const registerHistoryArb = (maxCalls: number): fc.Arbitrary<Checked<number, RegisterCall>> =>
  fc
    .record({
      initial: fc.nat({ max: 2 }),
      others: fc.array(fc.nat({ max: 2 }), { maxLength: 2 }),
      calls: fc.array(fc.tuple(registerOpArb, timingArb), { minLength: 1, maxLength: maxCalls }),
      how: fc.constantFrom('correct', 'mutated', 'random'),
      mutation: mutationArb,
    })
    .map(({ initial, others, calls, how, mutation }) => {
      const timings = calls.map(([, t]) => t);
      const ops = calls.map(([op]) => op);
      const answers = how === 'random' ? ops : executeRegister(initial, ops, timings);
      let history = answers.map((call, i) => ({
        call,
        invokedAt: (timings[i] as Timing).invokedAt,
        completedAt: (timings[i] as Timing).completedAt,
      }));
      if (how === 'mutated') history = mutated(history, mutation, mutateRegister);
      return { initialStates: [...others, initial], history, correct: how === 'correct' };
    });

/** One call of `history` changed by `mutation`: its answer, or when it was answered. */
function mutated<C>(
  history: readonly TimedCall<C>[],
  mutation: Mutation,
  answer: (call: C, pick: number) => C,
): TimedCall<C>[] {
  const at = mutation.call % history.length;
  return history.map((call, i) => {
    if (i !== at) return call;
    return mutation.earlier > 0
      ? answeredEarlier(call, mutation.earlier)
      : { ...call, call: answer(call.call, mutation.answer) };
  });
}

// The kit's record model: an employee's unarchives and archives, or a shift's deletes, with the
// dates a correct target sets (its clock is the kit's, here, T0 at 0 ms) and answers.
const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

interface TrueRecord {
  readonly deleted: boolean;
  readonly createdDate: number;
  readonly modifiedDate: number;
  readonly deletedDate: number | undefined;
}

/** What the record may truly be when the calls start: archived (deleted) or not. */
const TRUE_STARTS: readonly TrueRecord[] = [
  { deleted: true, createdDate: -10_000, modifiedDate: -1000, deletedDate: -1000 },
  { deleted: false, createdDate: -10_000, modifiedDate: -1000, deletedDate: undefined },
];

const answerOf = (record: TrueRecord): ChangeAnswer => ({
  status: 200,
  deleted: record.deleted,
  createdDate: iso(record.createdDate),
  modifiedDate: iso(record.modifiedDate),
  ...(record.deletedDate === undefined ? {} : { deletedDate: iso(record.deletedDate) }),
});

/** The record's calls answered as a correct target answers them, in `timings`' effect order. */
function executeRecord(
  initial: TrueRecord,
  calls: readonly RecordCall[],
  timings: readonly Timing[],
): RecordCall[] {
  const answered = [...calls];
  let record = initial;
  for (const i of effectOrder(timings)) {
    const call = calls[i] as RecordCall;
    const at = (timings[i] as Timing).effectAt as number;
    if (call.kind === 'unarchive') {
      if (record.deleted) {
        record = { ...record, deleted: false, modifiedDate: at, deletedDate: undefined };
        answered[i] = { ...call, answer: answerOf(record) };
      } else {
        answered[i] = { ...call, answer: { status: 400, code: 'EMPLOYEE_NOT_ARCHIVED' } };
      }
    } else {
      if (!record.deleted) record = { ...record, deleted: true, modifiedDate: at, deletedDate: at };
      answered[i] = { ...call, answer: answerOf(record) };
    }
  }
  return answered;
}

/** Dates a random answer draws from: before the calls, and the first few ms of them. */
const dateArb = fc.constantFrom(-1000, 0, 1, 2, 3, 5, 8).map(iso);

const randomAnswerArb: fc.Arbitrary<ChangeAnswer> = fc.oneof(
  fc.constant({ status: 400, code: 'EMPLOYEE_NOT_ARCHIVED' }),
  fc
    .record({ deleted: fc.boolean(), modifiedDate: dateArb, deletedDate: dateArb })
    .map(({ deleted, modifiedDate, deletedDate }) => ({
      status: 200,
      deleted,
      createdDate: iso(-10_000),
      modifiedDate,
      ...(deleted ? { deletedDate } : {}),
    })),
);

function mutateRecord(call: RecordCall, pick: number): RecordCall {
  const { answer } = call;
  if (answer === undefined) return call;
  if (answer.status !== 200) return { ...call, answer: answerOf(TRUE_STARTS[0] as TrueRecord) };
  switch (pick % 4) {
    case 0:
      return { ...call, answer: { ...answer, deleted: !answer.deleted } };
    case 1:
      return { ...call, answer: { status: 400, code: 'EMPLOYEE_NOT_ARCHIVED' } };
    case 2: {
      const moved = iso(Date.parse(answer.modifiedDate ?? iso(0)) - T0 + 1);
      return { ...call, answer: { ...answer, modifiedDate: moved } };
    }
    default: {
      const { deletedDate: _dropped, ...rest } = answer;
      return { ...call, answer: rest };
    }
  }
}

/** The model's state for a true record: its dates known, or not known yet (a live target). */
function modelStateOf(record: TrueRecord, known: boolean): RecordModelState {
  const slot = (ms: number | undefined): DateSlot | undefined =>
    ms === undefined ? undefined : known ? { value: iso(ms) } : UNKNOWN_DATE;
  return {
    deleted: record.deleted,
    createdDate: slot(record.createdDate) as DateSlot,
    modifiedDate: slot(record.modifiedDate) as DateSlot,
    deletedDate: slot(record.deletedDate),
  };
}

const recordHistoryArb = (
  record: 'employee' | 'shift',
  maxCalls: number,
): fc.Arbitrary<Checked<RecordModelState, RecordCall>> => {
  const kinds =
    record === 'employee'
      ? fc.constantFrom('unarchive' as const, 'archive' as const)
      : fc.constant('delete' as const);
  return fc
    .record({
      initial: fc.constantFrom(...TRUE_STARTS),
      known: fc.boolean(),
      others: fc.array(fc.tuple(fc.constantFrom(...TRUE_STARTS), fc.boolean()), { maxLength: 2 }),
      calls: fc.array(fc.tuple(kinds, timingArb, randomAnswerArb, fc.nat({ max: 1 })), {
        minLength: 1,
        maxLength: maxCalls,
      }),
      how: fc.constantFrom('correct', 'mutated', 'random'),
      mutation: mutationArb,
    })
    .map(({ initial, known, others, calls, how, mutation }) => {
      const timings = calls.map(([, t]) => t);
      // Sent at or after `earliest` by the target's clock: the kit's estimate, 0 or 1 ms early.
      const drawn: RecordCall[] = calls.map(([kind, t, answer, early]) => ({
        kind,
        answer,
        earliest: T0 + t.invokedAt - early,
      }));
      const answered = how === 'random' ? drawn : executeRecord(initial, drawn, timings);
      let history: TimedCall<RecordCall>[] = answered.map((call, i) => {
        const t = timings[i] as Timing;
        const determinate = t.completedAt !== undefined;
        return {
          call: determinate ? call : { ...call, answer: undefined },
          invokedAt: t.invokedAt,
          completedAt: t.completedAt,
        };
      });
      if (how === 'mutated') history = mutated(history, mutation, mutateRecord);
      const initialStates = [
        ...others.map(([state, k]) => modelStateOf(state, k)),
        modelStateOf(initial, known),
      ];
      return { initialStates, history, correct: how === 'correct' };
    });
};

/** What the differential runs saw, so that a generator that stopped reaching a case fails. */
class Tally {
  linearizable = 0;
  notLinearizable = 0;
  indeterminate = 0;
  severalStarts = 0;
  runs = 0;
  see(checked: Checked<unknown, unknown>, linearizable: boolean) {
    this.runs++;
    if (linearizable) this.linearizable++;
    else this.notLinearizable++;
    if (checked.history.some((h) => h.completedAt === undefined)) this.indeterminate++;
    if (checked.initialStates.length > 1) this.severalStarts++;
  }
  /** Each kind of history made up at least a tenth of the runs. */
  expectReached() {
    for (const count of [
      this.linearizable,
      this.notLinearizable,
      this.indeterminate,
      this.severalStarts,
    ]) {
      expect(count).toBeGreaterThanOrEqual(this.runs / 10);
    }
  }
}

/** Whether `order` replays from one of `initialStates`, ending in a state of key `key` if given. */
function replaysFromSome<S, C>(
  model: SequentialModel<S, C>,
  { initialStates, history }: Checked<S, C>,
  order: readonly number[],
  key?: string,
): boolean {
  return initialStates.some((initial) => {
    const end = replay(model, initial, history, order);
    return end !== undefined && (key === undefined || model.key(end) === key);
  });
}

/**
 * `checkLinearizable` against the brute force on `checked`: the same verdict, the same final
 * states, an order that fits when it says so, a dead end that is one when it says none does.
 * Returns the verdict.
 */
function holdsToBruteForce<S, C>(model: SequentialModel<S, C>, checked: Checked<S, C>): boolean {
  const { initialStates, history } = checked;
  const brute = bruteForceLinearizable(model, initialStates, history);
  if (checked.correct) expect(brute.linearizable).toBe(true);
  const every = checkLinearizable(model, initialStates, history, { finalStates: true });
  const first = checkLinearizable(model, initialStates, history);
  const expected = brute.linearizable ? 'linearizable' : 'not-linearizable';
  expect(every.kind).toBe(expected);
  expect(first.kind).toBe(expected);
  if (every.kind === 'linearizable' && first.kind === 'linearizable') {
    expect(every.finalStatesComplete).toBe(true);
    expect(new Set(every.finalStates.map((s) => model.key(s)))).toEqual(brute.finalKeys);
    const determinate = history.flatMap((h, i) => (h.completedAt === undefined ? [] : [i]));
    for (const { order } of [every, first]) {
      expect(determinate.every((i) => order.includes(i))).toBe(true);
      expect(realTimeAllows(history, order)).toBe(true);
      expect(replaysFromSome(model, checked, order)).toBe(true);
    }
  }
  if (every.kind === 'not-linearizable') {
    // The furthest order is one the model accepts, and each call blocked after it is refused.
    const { deepest, state, blocked } = every;
    expect(realTimeAllows(history, deepest)).toBe(true);
    expect(replaysFromSome(model, checked, deepest, model.key(state))).toBe(true);
    for (const { index } of blocked) {
      expect(realTimeAllows(history, [...deepest, index])).toBe(true);
      const call = history[index] as TimedCall<C>;
      expect(model.step(state, call.call, call.completedAt !== undefined).ok).toBe(false);
    }
  }
  return brute.linearizable;
}

/**
 * Under a bound of `maxSteps`: undecided only when the search for a first order is undecided too
 * (an order found is never undecided); otherwise the brute force's verdict, and final states
 * among its own (all of them unless the bound cut the search short).
 */
function keepsToItsBound<S, C>(
  model: SequentialModel<S, C>,
  { initialStates, history }: Checked<S, C>,
  maxSteps: number,
) {
  const bounded = checkLinearizable(model, initialStates, history, { finalStates: true, maxSteps });
  const first = checkLinearizable(model, initialStates, history, { maxSteps });
  if (first.kind === 'linearizable') expect(bounded.kind).toBe('linearizable');
  if (bounded.kind === 'undecided') {
    expect(first.kind).toBe('undecided');
    return;
  }
  const brute = bruteForceLinearizable(model, initialStates, history);
  expect(bounded.kind).toBe(brute.linearizable ? 'linearizable' : 'not-linearizable');
  if (bounded.kind !== 'linearizable') return;
  const keys = new Set(bounded.finalStates.map((s) => model.key(s)));
  for (const key of keys) expect(brute.finalKeys.has(key)).toBe(true);
  if (bounded.finalStatesComplete) expect(keys).toEqual(brute.finalKeys);
}

describe('checkLinearizable against a checker that tries every order', () => {
  it('gives its verdicts on a register with compare-and-set', () => {
    const tally = new Tally();
    fc.assert(
      fc.property(registerHistoryArb(6), (checked) => {
        tally.see(checked, holdsToBruteForce(register, checked));
      }),
      { numRuns: 400 },
    );
    tally.expectReached();
  });

  it.each(['employee', 'shift'] as const)(
    "gives its verdicts on the kit's model of a %s",
    (record) => {
      const model = recordModel(record);
      const tally = new Tally();
      fc.assert(
        fc.property(recordHistoryArb(record, 5), (checked) => {
          tally.see(checked, holdsToBruteForce(model, checked));
        }),
        { numRuns: 300 },
      );
      tally.expectReached();
    },
  );

  it('never reports undecided a history for which it found an order, under any bound', () => {
    const model = recordModel('employee');
    fc.assert(
      fc.property(registerHistoryArb(6), fc.nat({ max: 120 }), (checked, maxSteps) => {
        keepsToItsBound(register, checked, maxSteps);
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(recordHistoryArb('employee', 5), fc.nat({ max: 60 }), (checked, maxSteps) => {
        keepsToItsBound(model, checked, maxSteps);
      }),
      { numRuns: 200 },
    );
  });
});
