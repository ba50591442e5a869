// The history of one case of the concurrent group, checked: the calls are split by the record
// they change (calls on different records commute, so a history is linearizable when each
// record's is: P-compositionality), each record's calls are searched for an order its model
// accepts, and a failure is explained in the domain's words from the deepest point the search
// reached, with the calls that cannot be ordered marked.
import { checkLinearizable, DEFAULT_MAX_STEPS } from './linearizability.js';
import {
  type ChangeAnswer,
  type ChangeKind,
  describeState,
  type RecordModelState,
  recordModel,
} from './record-model.js';

/** A record a case changes, as a report names it. */
export interface RaceRecord {
  readonly guid: string;
  readonly kind: 'employee' | 'shift';
  /** `employee 6a2b9c4d-… (PAYROLL:10042)`. */
  readonly label: string;
}

/** Where a call of a case was sent: the sequential prefix, a branch, or the suffix. */
export type Phase = 'prefix' | 'branch' | 'suffix';

/** One call of a case's history. */
export interface HistoryCall {
  readonly phase: Phase;
  /** 0 for the prefix and the suffix (the main connection); the branch's number (1, 2, …). */
  readonly lane: number;
  readonly record: RaceRecord;
  readonly kind: ChangeKind;
  readonly byExternalId: boolean;
  /** When it was sent, ms from the case's start (a monotonic clock). */
  readonly invokedAt: number;
  /** When its answer came, ms from the case's start; undefined when none came. */
  readonly completedAt: number | undefined;
  /** Whether its answer says if the change happened (not a 5xx, a timeout, a dropped connection). */
  readonly determinate: boolean;
  /** What the answer said, for the model (undefined when no answer came). */
  readonly answer: ChangeAnswer | undefined;
  /** The answer in a few words: `200 deleted true, …`, `503 STORAGE_UNAVAILABLE`, `no answer: …`. */
  readonly outcome: string;
  /** The earliest its change can have happened, by the target's clock (ms since the epoch). */
  readonly earliest: number;
}

/** The outcome of {@link checkHistory}. */
export type HistoryVerdict =
  | {
      readonly kind: 'linearizable';
      /** Every state each record may be in after the case. */
      readonly finalStates: ReadonlyMap<string, readonly RecordModelState[]>;
      readonly steps: number;
    }
  | {
      readonly kind: 'not-linearizable';
      readonly record: RaceRecord;
      /** One sentence: why no order fits. */
      readonly summary: string;
      /** The furthest order found and why nothing can come after it. */
      readonly detail: string;
      /** Indices of the calls that cannot be ordered. */
      readonly marked: readonly number[];
      readonly steps: number;
    }
  | { readonly kind: 'undecided'; readonly record: RaceRecord; readonly steps: number };

/** A branch's letter: branch 1 is A. */
export const branchLetter = (lane: number) => String.fromCharCode(64 + lane);

/** A call as the explanations name it: `#3 unarchive (branch A)`. */
export function callName(calls: readonly HistoryCall[], index: number): string {
  const call = calls[index] as HistoryCall;
  const how = call.kind === 'unarchive' ? '' : call.byExternalId ? ' by external id' : ' by GUID';
  const where = call.phase === 'branch' ? `branch ${branchLetter(call.lane)}` : call.phase;
  return `#${index + 1} ${call.kind}${how} (${where})`;
}

const overlapsWindow = (call: HistoryCall, from: number, to: number) =>
  call.invokedAt < to && (call.determinate ? (call.completedAt as number) : Infinity) > from;

/** Whether `call` may have changed the record: it answered 200, or nothing that says. */
const mayChange = (call: HistoryCall) => !call.determinate || call.answer?.status === 200;

/** Whether the answer of `call` shows the record not archived (not deleted). */
const showsNotArchived = (call: HistoryCall, before: HistoryCall) =>
  call.determinate &&
  (call.kind === 'unarchive'
    ? call.answer?.status === 400 && call.answer.code === 'EMPLOYEE_NOT_ARCHIVED'
    : call.answer?.status === 200 &&
      call.answer.deletedDate !== undefined &&
      call.answer.deletedDate !== before.answer?.deletedDate &&
      Date.parse(call.answer.deletedDate) > Date.parse(before.answer?.deletedDate ?? ''));

/**
 * The races a sentence says best, each claimed only when no other call of the history could make
 * it untrue, and each with a call no order could place at the deepest point the search reached
 * (`blocked`): an archive (or delete) lost, a later call finding the record not archived with no
 * unarchive that could come between; two unarchives both 200; two archives or deletes with
 * different deletedDates. Undefined when the history shows none of them.
 */
function namedRace(
  calls: readonly HistoryCall[],
  indices: readonly number[],
  blocked: readonly number[],
): { readonly summary: string; readonly marked: readonly number[] } | undefined {
  const record = (calls[indices[0] as number] as HistoryCall).record;
  const archived = record.kind === 'shift' ? 'deleted' : 'archived';
  const at = (i: number) => calls[i] as HistoryCall;
  // The calls that may have changed the record, by what they do.
  const unarchivers = indices.filter((i) => at(i).kind === 'unarchive' && mayChange(at(i)));
  const archivers = indices.filter((i) => at(i).kind !== 'unarchive' && mayChange(at(i)));
  /** Whether one of `changers`, other than a and b, can come between a and b. */
  const between = (a: number, b: number, changers: readonly number[]) => {
    const from = Math.min(at(a).invokedAt, at(b).invokedAt);
    const to = Math.max(at(a).completedAt as number, at(b).completedAt as number);
    return changers.some((i) => i !== a && i !== b && overlapsWindow(at(i), from, to));
  };
  const ok200 = (i: number) => at(i).determinate && at(i).answer?.status === 200;
  const archivedBy = (i: number) =>
    ok200(i) && at(i).kind !== 'unarchive' && at(i).answer?.deleted === true;
  // The pairs with a blocked call, each once, in the history's order.
  const pairs: [number, number][] = [];
  const seen = new Set<string>();
  for (const x of blocked) {
    for (const y of indices) {
      const pair: [number, number] = x < y ? [x, y] : [y, x];
      if (x === y || seen.has(`${pair}`)) continue;
      seen.add(`${pair}`);
      pairs.push(pair);
    }
  }
  pairs.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  for (const [a, b] of pairs) {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      if (!archivedBy(x) || at(y).invokedAt <= (at(x).completedAt as number)) continue;
      if (!showsNotArchived(at(y), at(x)) || between(x, y, unarchivers)) continue;
      const what = record.kind === 'shift' ? 'delete' : 'archive';
      return {
        summary: `${callName(calls, x)} answered 200 with ${record.label} ${archived}, but ${callName(calls, y)}, sent after that answer, found it not ${archived} (${at(y).outcome}), and no unarchive that could come between them changed it: the ${what} was lost`,
        marked: [x, y],
      };
    }
  }
  for (const [a, b] of pairs) {
    const both = ok200(a) && ok200(b);
    if (
      both &&
      at(a).kind === 'unarchive' &&
      at(b).kind === 'unarchive' &&
      !between(a, b, archivers)
    ) {
      return {
        summary: `two unarchives of ${record.label}, ${callName(calls, a)} and ${callName(calls, b)}, both answered 200: in any order, the second finds the employee not archived and must answer 400 EMPLOYEE_NOT_ARCHIVED`,
        marked: [a, b],
      };
    }
  }
  for (const [a, b] of pairs) {
    const x = at(a).answer?.deletedDate;
    const y = at(b).answer?.deletedDate;
    if (!archivedBy(a) || !archivedBy(b) || x === y || between(a, b, unarchivers)) continue;
    const what = record.kind === 'shift' ? 'deletes' : 'archives';
    return {
      summary: `two ${what} of ${record.label}, ${callName(calls, a)} and ${callName(calls, b)}, answered different deletedDates, ${x} and ${y}: in any order, the second finds the ${record.kind} ${archived} and must answer its deletedDate unchanged`,
      marked: [a, b],
    };
  }
  return undefined;
}

/**
 * Checks a case's history: for each record, whether an order of its calls that respects real
 * time gives every answer the model gives, starting from any state `start` allows.
 *
 * @param calls - the history, in the order the calls were sent
 * @param start - the states each record may be in when the case starts
 * @param options - the bound on the search's steps (for the whole history), and whether the
 *   states each record may end in are wanted
 * @returns linearizable (with the final states), the first record that is not (explained), or
 *   undecided
 */
export function checkHistory(
  calls: readonly HistoryCall[],
  start: (record: RaceRecord) => readonly RecordModelState[],
  { maxSteps = DEFAULT_MAX_STEPS, finalStates = false } = {},
): HistoryVerdict {
  const byRecord = new Map<string, number[]>();
  for (const [i, call] of calls.entries()) {
    byRecord.set(call.record.guid, [...(byRecord.get(call.record.guid) ?? []), i]);
  }
  const finals = new Map<string, readonly RecordModelState[]>();
  let steps = 0;
  for (const indices of byRecord.values()) {
    const record = (calls[indices[0] as number] as HistoryCall).record;
    const initial = start(record);
    const history = indices.map((i) => {
      const call = calls[i] as HistoryCall;
      return {
        call: { kind: call.kind, answer: call.answer, earliest: call.earliest },
        invokedAt: call.invokedAt,
        completedAt: call.determinate ? call.completedAt : undefined,
      };
    });
    const verdict = checkLinearizable(recordModel(record.kind), initial, history, {
      maxSteps: maxSteps - steps,
      finalStates,
    });
    steps += verdict.steps;
    if (verdict.kind === 'undecided') return { kind: 'undecided', record, steps };
    if (verdict.kind === 'linearizable') {
      finals.set(record.guid, verdict.finalStates);
      continue;
    }
    const global = (local: number) => indices[local] as number;
    const order = verdict.deepest.map((i) => callName(calls, global(i)));
    const after =
      order.length === 0
        ? `At the start the ${record.kind} is ${describeState(record.kind, verdict.state)}`
        : `The furthest order found is ${order.join(', ')}; after it the ${record.kind} is ${describeState(record.kind, verdict.state)}`;
    const blocked = verdict.blocked.map((b) => `${callName(calls, global(b.index))} ${b.why}`);
    const detail = `${after}, and no call can come next: ${blocked.join('; ')}.`;
    const named = namedRace(
      calls,
      indices,
      verdict.blocked.map((b) => global(b.index)),
    );
    return {
      kind: 'not-linearizable',
      record,
      summary:
        named?.summary ??
        `no order of the ${indices.length} calls on ${record.label} gives the answers they got`,
      detail,
      marked: named?.marked ?? verdict.blocked.map((b) => global(b.index)),
      steps,
    };
  }
  return { kind: 'linearizable', finalStates: finals, steps };
}
