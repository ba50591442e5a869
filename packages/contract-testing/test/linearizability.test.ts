// The linearizability checker on its own, over a read/write register (the textbook's object): real
// time respected, indeterminate calls placed anywhere after their invocation or nowhere, the
// deepest order found when none fits, the bound on the work (undecided, never passed), and the
// memo that keeps a long history of a few overlapping calls cheap.
import { describe, expect, it } from 'vitest';
import { checkLinearizable, type SequentialModel, type TimedCall } from '../src/linearizability.js';

type RegisterCall =
  | { readonly op: 'write'; readonly value: number }
  | { readonly op: 'read'; readonly value: number };

const register: SequentialModel<number, RegisterCall> = {
  key: (state) => String(state),
  step(state, call, determinate) {
    if (call.op === 'write') return { ok: true, next: call.value };
    if (!determinate || call.value === state) return { ok: true, next: state };
    return { ok: false, why: () => `read ${call.value}, the register holds ${state}` };
  },
};

const at = (
  call: RegisterCall,
  invokedAt: number,
  completedAt: number | undefined,
): TimedCall<RegisterCall> => ({ call, invokedAt, completedAt });
const write = (value: number) => ({ op: 'write', value }) as const;
const read = (value: number) => ({ op: 'read', value }) as const;

describe('checkLinearizable', () => {
  it('finds an order for overlapping calls, whichever the model needs', () => {
    // The read overlaps the write: it may come before it (0) or after it (1).
    for (const seen of [0, 1]) {
      const verdict = checkLinearizable(
        register,
        [0],
        [at(write(1), 0, 10), at(read(seen), 5, 15)],
      );
      expect(verdict.kind).toBe('linearizable');
    }
  });

  it('respects real time: a call that completed before another was invoked comes first', () => {
    const history = [at(write(1), 0, 10), at(read(0), 11, 20)];
    const verdict = checkLinearizable(register, [0], history);
    expect(verdict).toMatchObject({
      kind: 'not-linearizable',
      deepest: [0],
      state: 1,
      blocked: [{ index: 1, why: 'read 0, the register holds 1' }],
    });
    // The same calls overlapping: the read may come first.
    expect(checkLinearizable(register, [0], [at(write(1), 0, 10), at(read(0), 9, 20)]).kind).toBe(
      'linearizable',
    );
  });

  it('places an indeterminate call anywhere after its invocation, or nowhere', () => {
    // A write that never answered, then reads of 0 and 3: it took effect between them.
    const crashed = at(write(3), 0, undefined);
    expect(
      checkLinearizable(register, [0], [crashed, at(read(0), 1, 2), at(read(3), 5, 6)]).kind,
    ).toBe('linearizable');
    // Or it never did.
    expect(checkLinearizable(register, [0], [crashed, at(read(0), 1, 2)]).kind).toBe(
      'linearizable',
    );
    // But not before it was sent.
    expect(
      checkLinearizable(register, [0], [at(read(3), 0, 1), at(write(3), 2, undefined)]).kind,
    ).toBe('not-linearizable');
    // Completed with a determinate answer, the same write must have happened within its call.
    const answered = checkLinearizable(register, [0], [at(write(3), 0, 1), at(read(0), 2, 3)]);
    expect(answered.kind).toBe('not-linearizable');
  });

  it('gives every state the history may end in, when asked', () => {
    const history = [at(write(1), 0, 10), at(write(2), 5, 15), at(write(3), 20, undefined)];
    const verdict = checkLinearizable(register, [0], history, { finalStates: true });
    expect(verdict.kind).toBe('linearizable');
    if (verdict.kind !== 'linearizable') return;
    expect([...verdict.finalStates].sort()).toEqual([1, 2, 3]);
  });

  it('starts from any of several states', () => {
    expect(checkLinearizable(register, [0, 7], [at(read(7), 0, 1)]).kind).toBe('linearizable');
    expect(checkLinearizable(register, [0, 7], [at(read(5), 0, 1)]).kind).toBe('not-linearizable');
  });

  it('reports a history it cannot decide within its bound as undecided', () => {
    // Twelve overlapping writes and a read nothing wrote: every order is tried before the answer.
    const history = [
      ...Array.from({ length: 12 }, (_, i) => at(write(i), 0, 100)),
      at(read(99), 0, 100),
    ];
    expect(checkLinearizable(register, [0], history, { maxSteps: 50 })).toEqual({
      kind: 'undecided',
      steps: 50,
    });
    const decided = checkLinearizable(register, [0], history, { maxSteps: 1_000_000 });
    expect(decided.kind).toBe('not-linearizable');
  });

  it('never reports undecided a history for which it found an order, every order wanted', () => {
    // Eight overlapping writes: the first order is found in 8 steps, every order in thousands.
    const history = Array.from({ length: 8 }, (_, i) => at(write(i), 0, 100));
    expect(checkLinearizable(register, [0], history, { maxSteps: 20 }).kind).toBe('linearizable');
    const bounded = checkLinearizable(register, [0], history, { maxSteps: 20, finalStates: true });
    expect(bounded).toMatchObject({ kind: 'linearizable', finalStatesComplete: false, steps: 20 });
    const every = checkLinearizable(register, [0], history, { finalStates: true });
    expect(every).toMatchObject({ kind: 'linearizable', finalStatesComplete: true });
    if (bounded.kind !== 'linearizable' || every.kind !== 'linearizable') return;
    expect([...every.finalStates].sort()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // What the bounded search gives is the states of the orders it found by then.
    expect(bounded.finalStates.length).toBeGreaterThan(0);
    for (const state of bounded.finalStates) expect(every.finalStates).toContain(state);
    // Without an order found within the bound, it is still undecided.
    const wrong = [...history, at(read(99), 0, 100)];
    expect(checkLinearizable(register, [0], wrong, { maxSteps: 20, finalStates: true })).toEqual({
      kind: 'undecided',
      steps: 20,
    });
  });

  it('keeps a long history of a few overlapping calls cheap (the memo)', () => {
    // 200 calls in 4 lanes, each round of 4 overlapping; every read sees a write of its round.
    const history: TimedCall<RegisterCall>[] = [];
    for (let round = 0; round < 50; round++) {
      const t = round * 10;
      history.push(at(write(round), t, t + 5), at(write(round + 1000), t + 1, t + 6));
      history.push(at(read(round), t + 2, t + 7), at(read(round + 1000), t + 3, t + 8));
    }
    const verdict = checkLinearizable(register, [0], history, { finalStates: true });
    expect(verdict.kind).toBe('linearizable');
    // A search without the memo would try the 4! orders of each round over and over: 24^50.
    expect(verdict.steps).toBeLessThan(50 * 64);
  });
});
