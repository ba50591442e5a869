// The history of one case of the concurrent group, checked: the calls are split by the record
// they change (calls on different records commute, so a history is linearizable when each
// record's is: P-compositionality), each record's calls are searched for an order its model
// accepts, and a failure is told as data (race-report.ts words it): the race it shows when it is
// one of those a sentence says best, the deepest point the search reached, the calls that cannot
// be ordered.
import {
  type Blocked,
  checkLinearizable,
  DEFAULT_MAX_STEPS,
  type Linearizability,
  type SequentialModel,
  type TimedCall,
} from './linearizability.js';
import {
  type EventedCall,
  type EventedState,
  type EventReading,
  recordEventsModel,
  withoutEvents,
} from './record-events-model.js';
import {
  ANY_RECORD_STATES,
  type ChangeAnswer,
  type ChangeKind,
  type RecordCall,
  type RecordModelState,
  recordModel,
} from './record-model.js';

/** A record that a case of the concurrent group changes. */
export interface RaceRecord {
  readonly kind: 'employee' | 'shift';
  readonly guid: string;
  /** Its external id (`PAYROLL:10042`), when it has one. */
  readonly externalId?: string;
}

/** Where a call of a case was sent: the sequential prefix, a branch, or the suffix. */
export type RacePhase = 'prefix' | 'branch' | 'suffix';

/** One call of a case's history. */
export interface HistoryCall {
  readonly phase: RacePhase;
  /** 0 for the prefix and the suffix (the main connection); the branch's number (1, 2, …). */
  readonly lane: number;
  readonly record: RaceRecord;
  readonly kind: ChangeKind;
  /** Whether its path names the record by external id (by GUID otherwise). */
  readonly byExternalId: boolean;
  /** When it was sent, ms from the case's start (a monotonic clock). */
  readonly invokedAt: number;
  /** When its answer came, ms from the case's start; undefined when none came. */
  readonly completedAt: number | undefined;
  /** Whether its answer says if the change happened (not a 5xx, a timeout, a dropped connection). */
  readonly determinate: boolean;
  /** What its answer said (a 503's included); undefined when none came. */
  readonly answer: ChangeAnswer | undefined;
  /** Why no answer came (a dropped connection, a timeout); undefined when one did. */
  readonly noAnswer: string | undefined;
  /** The earliest its change can have happened, by the target's clock (ms since the epoch). */
  readonly earliest: number;
  /**
   * Its first event, when the kit checks events and one came: its rank among the events of its
   * record in the case, by arrival, and when it arrived (ms from the case's start).
   */
  readonly event?: { readonly rank: number; readonly at: number };
}

/**
 * A race a sentence says best, between two calls of a history (their indices): an archive (or a
 * delete) lost, found undone by a later call; two unarchives both answered 200; two archives or
 * deletes that answered different deletedDates.
 */
export interface NamedRace {
  readonly kind:
    | 'change-lost'
    | 'unarchived-twice'
    | 'deleted-dates-differ'
    | 'changed-twice'
    | 'event-for-no-op'
    | 'event-lost'
    | 'events-out-of-order';
  /**
   * The calls, in the history's order: two for the races between calls (for `change-lost`: the
   * change, then the call after it; for `events-out-of-order`: the change that comes first, then
   * the one whose event came first); the call for an event for a no-op; the changes without their
   * events for a lost event.
   */
  readonly calls: readonly number[];
}

/** The outcome of {@link checkHistory}. */
export type HistoryVerdict =
  | {
      readonly kind: 'linearizable';
      /**
       * Every state each record may be in after the case; those the model knows nothing of
       * (`ANY_RECORD_STATES`) when the bound ended the search before it found them all.
       */
      readonly finalStates: ReadonlyMap<string, readonly RecordModelState[]>;
      /** The calls with an answer that changed their record in the order found, as indices. */
      readonly changed: readonly number[];
      /**
       * Every call that changed its record in the order found (one without an answer included),
       * as indices, each record's in that order.
       */
      readonly changes: readonly number[];
      readonly steps: number;
    }
  | NotLinearizable
  | { readonly kind: 'undecided'; readonly record: RaceRecord; readonly steps: number };

/** A history no order fits: the first record whose calls none does, and what the search found. */
export interface NotLinearizable {
  readonly kind: 'not-linearizable';
  readonly record: RaceRecord;
  /** The record's calls, as indices in the history. */
  readonly recordCalls: readonly number[];
  /** The race the history shows, when it is one a sentence says best. */
  readonly race: NamedRace | undefined;
  /** The furthest order the search found, as indices in the history. */
  readonly deepest: readonly number[];
  /** The record's state after it. */
  readonly state: RecordModelState;
  /** Each call that could come next there, and why the model refused its answer. */
  readonly blocked: readonly Blocked[];
  /** Indices of the calls that cannot be ordered: the named race's, or the blocked ones. */
  readonly marked: readonly number[];
  readonly steps: number;
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
): NamedRace | undefined {
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
  const pairs = pairsWith(blocked, indices);
  for (const [a, b] of pairs) {
    for (const [x, y] of [
      [a, b],
      [b, a],
    ] as const) {
      if (!archivedBy(x) || at(y).invokedAt <= (at(x).completedAt as number)) continue;
      if (!showsNotArchived(at(y), at(x)) || between(x, y, unarchivers)) continue;
      return { kind: 'change-lost', calls: [x, y] };
    }
  }
  for (const [a, b] of pairs) {
    const unarchives = at(a).kind === 'unarchive' && at(b).kind === 'unarchive';
    if (unarchives && ok200(a) && ok200(b) && !between(a, b, archivers)) {
      return { kind: 'unarchived-twice', calls: [a, b] };
    }
  }
  for (const [a, b] of pairs) {
    const differ = at(a).answer?.deletedDate !== at(b).answer?.deletedDate;
    if (archivedBy(a) && archivedBy(b) && differ && !between(a, b, unarchivers)) {
      return { kind: 'deleted-dates-differ', calls: [a, b] };
    }
  }
  return undefined;
}

/** The pairs of a blocked call and another call of the record, each once, in the history's order. */
function pairsWith(blocked: readonly number[], indices: readonly number[]): [number, number][] {
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
  return pairs.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
}

/** The calls of an order that changed the record: all of them, and those with an answer. */
interface OrderChanges {
  readonly all: readonly number[];
  readonly answered: readonly number[];
}

/**
 * The calls of `order` that changed the record (archived it or not), replayed from the first of
 * `initialStates` the model accepts it from.
 */
function changesIn<S, C>(
  model: SequentialModel<S, C>,
  deletedIn: (state: S) => boolean,
  initialStates: readonly S[],
  history: readonly TimedCall<C>[],
  order: readonly number[],
): OrderChanges {
  for (const initial of initialStates) {
    const all: number[] = [];
    let state = initial;
    const fits = order.every((index) => {
      const { call, completedAt } = history[index] as TimedCall<C>;
      const step = model.step(state, call, completedAt !== undefined);
      if (!step.ok) return false;
      if (deletedIn(step.next) !== deletedIn(state)) all.push(index);
      state = step.next;
      return true;
    });
    if (fits) {
      const answered = all.filter((i) => (history[i] as TimedCall<C>).completedAt !== undefined);
      return { all, answered };
    }
  }
  return { all: [], answered: [] };
}

/** One record's search, its states those of the plain model whatever the reading. */
interface RecordSearch {
  readonly verdict: Linearizability<RecordModelState>;
  /** With an order found: the calls that changed the record in it. */
  readonly changes: OrderChanges;
}

const NO_CHANGES: OrderChanges = { all: [], answered: [] };

/**
 * Searches one record's calls: with the plain model, or, with `reading`, with the record's
 * events as observations (a call with an event completes by the event's arrival at the latest).
 */
function searchRecord(
  kind: 'employee' | 'shift',
  initialStates: readonly RecordModelState[],
  calls: readonly HistoryCall[],
  options: { readonly maxSteps: number; readonly finalStates: boolean },
  reading: EventReading | undefined,
): RecordSearch {
  const recordCallOf = (call: HistoryCall): RecordCall => ({
    kind: call.kind,
    answer: call.determinate ? call.answer : undefined,
    earliest: call.earliest,
  });
  if (reading === undefined) {
    const model = recordModel(kind);
    const history = calls.map((call) => ({
      call: recordCallOf(call),
      invokedAt: call.invokedAt,
      completedAt: call.determinate ? call.completedAt : undefined,
    }));
    const verdict = checkLinearizable(model, initialStates, history, options);
    const changes =
      verdict.kind === 'linearizable'
        ? changesIn(model, (s) => s.deleted, initialStates, history, verdict.order)
        : NO_CHANGES;
    return { verdict, changes };
  }
  const model = recordEventsModel(kind, reading);
  const history: TimedCall<EventedCall>[] = calls.map((call) => {
    const answered = call.determinate ? call.completedAt : undefined;
    const { event } = call;
    return {
      call: { ...recordCallOf(call), eventRank: event?.rank },
      invokedAt: call.invokedAt,
      completedAt:
        event === undefined
          ? answered
          : Math.max(call.invokedAt, Math.min(answered ?? Number.POSITIVE_INFINITY, event.at)),
    };
  });
  const starts = withoutEvents(initialStates);
  const evented = checkLinearizable(model, starts, history, options);
  const plain = (s: EventedState) => s.record;
  switch (evented.kind) {
    case 'linearizable': {
      const keys = new Set<string>();
      const finalStates = evented.finalStates.map(plain).filter((s) => {
        const key = recordModel(kind).key(s);
        if (keys.has(key)) return false;
        keys.add(key);
        return true;
      });
      const changes = changesIn(model, (s) => s.record.deleted, starts, history, evented.order);
      return { verdict: { ...evented, finalStates }, changes };
    }
    case 'not-linearizable':
      return { verdict: { ...evented, state: evented.state.record }, changes: NO_CHANGES };
    default:
      return { verdict: evented, changes: NO_CHANGES };
  }
}

/** The calls of each record, by GUID: indices in the history, in its order. */
function callsByRecord(calls: readonly HistoryCall[]): Map<string, number[]> {
  const byRecord = new Map<string, number[]>();
  for (const [i, call] of calls.entries()) {
    const indices = byRecord.get(call.record.guid);
    if (indices === undefined) byRecord.set(call.record.guid, [i]);
    else indices.push(i);
  }
  return byRecord;
}

/**
 * Checks a case's history: for each record, whether an order of its calls that respects real
 * time gives every answer the model gives, starting from any state `start` allows.
 *
 * @param calls - the history, in the order the calls were sent
 * @param start - the states each record may be in when the case starts
 * @param options - the bound on the search's steps (for the whole history), and whether the
 *   states each record may end in are wanted
 * @returns linearizable (with the final states), the first record that is not (what the search
 *   found), or undecided
 */
export function checkHistory(
  calls: readonly HistoryCall[],
  start: (record: RaceRecord) => readonly RecordModelState[],
  {
    maxSteps = DEFAULT_MAX_STEPS,
    finalStates = false,
    events,
  }: {
    readonly maxSteps?: number;
    readonly finalStates?: boolean;
    /** Read the calls' events as observations, so (record-events-model.ts); by default, not. */
    readonly events?: EventReading;
  } = {},
): HistoryVerdict {
  const finals = new Map<string, readonly RecordModelState[]>();
  const changed: number[] = [];
  const changes: number[] = [];
  let steps = 0;
  for (const indices of callsByRecord(calls).values()) {
    const record = (calls[indices[0] as number] as HistoryCall).record;
    const initialStates = start(record);
    const search = searchRecord(
      record.kind,
      initialStates,
      indices.map((i) => calls[i] as HistoryCall),
      { maxSteps: maxSteps - steps, finalStates },
      events,
    );
    const { verdict } = search;
    steps += verdict.steps;
    if (verdict.kind === 'undecided') return { kind: 'undecided', record, steps };
    if (verdict.kind === 'linearizable') {
      const complete = verdict.finalStatesComplete || !finalStates;
      finals.set(record.guid, complete ? verdict.finalStates : ANY_RECORD_STATES);
      changed.push(...search.changes.answered.map((i) => indices[i] as number));
      changes.push(...search.changes.all.map((i) => indices[i] as number));
      continue;
    }
    const global = (local: number) => indices[local] as number;
    const blocked = verdict.blocked.map((b) => ({ index: global(b.index), why: b.why }));
    const race = namedRace(
      calls,
      indices,
      blocked.map((b) => b.index),
    );
    return {
      kind: 'not-linearizable',
      record,
      recordCalls: indices,
      race,
      deepest: verdict.deepest.map(global),
      state: verdict.state,
      blocked,
      marked: race?.calls ?? blocked.map((b) => b.index),
      steps,
    };
  }
  return {
    kind: 'linearizable',
    finalStates: finals,
    changed: changed.sort((a, b) => a - b),
    changes,
    steps,
  };
}
