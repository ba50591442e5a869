// The concurrent group: changes of the same few records sent at once, and the history held to the
// state tables (linearizability). A case is a short sequential prefix, then 2 to 4 branches of
// unarchives, archives (by GUID and by external id) and shift deletes, each branch on a
// connection of its own, opened before the branches are released together, each branch's calls
// back to back; then a sequential suffix whose calls show each record's final state through the
// API's own operations (there is no read of an employee or a shift: an archive, an unarchive or a
// delete shows it). Each call's invocation and completion are timed with a monotonic clock; each
// answer is held to the spec on its own, and the history to the model by the checker
// (concurrent-history.ts). A live target cannot be reset: the next case starts from every state
// the last one may have left each record in.
import fc from 'fast-check';
import type { Answer } from './answer-checks.js';
import { enterCall } from './call-events.js';
import { type CaseEvents, checkCaseEvents, settleFailedCase } from './case-events.js';
import type { ChangeRole } from './change-evidence.js';
import { CLOCK_SKEW_MS, changeTimeOf } from './change-time.js';
import {
  checkHistory,
  type HistoryCall,
  type RacePhase,
  type RaceRecord,
} from './concurrent-history.js';
import { type Engine, sendOn } from './engine.js';
import type { LedgerCall } from './event-ledger.js';
import { bodyOf, checkRecordBody } from './expected-answer-checks.js';
import {
  type Connection,
  type HttpClient,
  TargetUnavailable,
  type WireRequest,
} from './http-client.js';
import { fullGrant } from './model-calls.js';
import type { PropertyDefinition, Trial } from './property-runner.js';
import {
  formatRaceTimeline,
  laneName,
  type RaceEventReport,
  RaceViolation,
  raceReport,
} from './race-report.js';
import {
  ANY_RECORD_STATES,
  type ChangeKind,
  changeAnswerOf,
  type DateSlot,
  type RecordModelState,
  UNKNOWN_DATE,
} from './record-model.js';
import { type Call, callLine, callToWire } from './requests.js';
import { reseed } from './seed-start.js';
import { observe } from './state-oracle.js';
import { cloneKnowledge, DATE_FIELDS, type RecordState, type WorldRecord } from './world.js';

/** How often a case is sent once a property has failed (shrinking, replay): a race may not recur. */
const ATTEMPTS_AFTER_FAILURE = 3;

/**
 * A call of a case before it is resolved: which of the case's records, and how (0 to 2); on a
 * branch, whether the kit hangs up on it (an index of {@link HANG_UP_AFTER_MS}).
 */
interface CaseCall {
  readonly record: number;
  readonly how: number;
  readonly hangUp?: number;
}

/**
 * How long after sending a branch's call the kit hangs up, by the call's `hangUp`: on one call in
 * ten, at once or 2 ms later; never on the others (0, where shrinking goes).
 */
const HANG_UP_AFTER_MS: readonly (number | undefined)[] = [
  ...Array<undefined>(8).fill(undefined),
  0,
  2,
];

/** A case as generated: records of the world, the prefix, the branches, how the suffix shows each record. */
interface RaceCase {
  readonly records: readonly number[];
  readonly prefix: readonly CaseCall[];
  readonly branches: readonly (readonly CaseCall[])[];
  readonly reveals: readonly number[];
}

/**
 * The steps toward a smaller case that fast-check's own shrinking of arrays does not take, and a
 * race needs: a whole branch removed, wherever it is; the prefix removed; the first call of every
 * branch removed at once (the calls after them are then released together, as they raced); a
 * branch's last call removed.
 */
function structuralShrinks(raceCase: RaceCase): RaceCase[] {
  const { branches } = raceCase;
  const out: RaceCase[] = [];
  if (raceCase.prefix.length > 0) out.push({ ...raceCase, prefix: [] });
  if (branches.length > 2) {
    for (const i of branches.keys())
      out.push({ ...raceCase, branches: branches.filter((_, j) => j !== i) });
  }
  if (branches.filter((b) => b.length > 1).length >= 2) {
    out.push({ ...raceCase, branches: branches.map((b) => (b.length > 1 ? b.slice(1) : b)) });
  }
  for (const [i, branch] of branches.entries()) {
    if (branch.length < 2) continue;
    out.push({ ...raceCase, branches: branches.map((b, j) => (j === i ? b.slice(0, -1) : b)) });
  }
  return out;
}

/** The case generator: fast-check's, its shrinking preceded by {@link structuralShrinks}. */
class RaceCaseArbitrary extends fc.Arbitrary<RaceCase> {
  constructor(private readonly inner: fc.Arbitrary<RaceCase>) {
    super();
  }
  generate(mrng: fc.Random, biasFactor: number | undefined): fc.Value<RaceCase> {
    return this.inner.generate(mrng, biasFactor);
  }
  canShrinkWithoutContext(value: unknown): value is RaceCase {
    return this.inner.canShrinkWithoutContext(value);
  }
  shrink(value: RaceCase, context: unknown): fc.Stream<fc.Value<RaceCase>> {
    // Each structural step is a value without context, which fast-check's own steps then shrink.
    const own = structuralShrinks(value).map((c) => new fc.Value(c, undefined));
    return fc.Stream.of(...own).join(this.inner.shrink(value, context));
  }
}

/** A call of a case, resolved against the world. */
interface Planned {
  readonly record: WorldRecord;
  readonly kind: ChangeKind;
  readonly byExternalId: boolean;
  /** The kit hangs up this long after sending it, before the answer: indeterminate. */
  readonly hangUpAfterMs?: number;
}

/** Where a call is sent, and what: its phase and lane, the call, its request. */
interface Where {
  readonly phase: RacePhase;
  readonly lane: number;
  readonly call: Call;
  readonly request: WireRequest;
}

/** A call sent, and what came back. */
interface Sent extends Where {
  readonly planned: Planned;
  readonly answer: Answer | undefined;
  readonly error: TargetUnavailable | undefined;
  /** The call as the run's events hold it, when the kit checks events. */
  readonly events: LedgerCall | undefined;
  /** The kit's clock when it was sent (ms since the epoch). */
  readonly sentAt: number;
  readonly invokedAt: number;
  readonly completedAt: number | undefined;
}

/** The call `how` names on `record`: unarchive, archive by GUID or by external id; delete by either. */
function resolve(record: WorldRecord, how: number): Planned {
  const external = record.externalId !== undefined;
  if (record.kind === 'shift')
    return { record, kind: 'delete', byExternalId: external && how === 1 };
  if (how === 0) return { record, kind: 'unarchive', byExternalId: false };
  return { record, kind: 'archive', byExternalId: external && how === 2 };
}

/** The calls of the suffix that show `record`'s state: `reveal` picks them for an employee. */
function reveals(record: WorldRecord, reveal: number): Planned[] {
  if (record.kind === 'shift') return [{ record, kind: 'delete', byExternalId: false }];
  const unarchive: Planned = { record, kind: 'unarchive', byExternalId: false };
  const archive: Planned = { record, kind: 'archive', byExternalId: false };
  return [[archive], [unarchive], [unarchive, archive]][reveal % 3] as Planned[];
}

interface Plan {
  readonly prefix: readonly Planned[];
  readonly branches: readonly (readonly Planned[])[];
  readonly suffix: readonly Planned[];
}

function planOf(pool: readonly WorldRecord[], raceCase: RaceCase): Plan {
  const records = raceCase.records.map((i) => pool[i % pool.length] as WorldRecord);
  const resolved = (c: CaseCall): Planned => {
    const planned = resolve(records[c.record % records.length] as WorldRecord, c.how);
    const hangUpAfterMs = c.hangUp === undefined ? undefined : HANG_UP_AFTER_MS[c.hangUp];
    return hangUpAfterMs === undefined ? planned : { ...planned, hangUpAfterMs };
  };
  return {
    prefix: raceCase.prefix.map(resolved),
    branches: raceCase.branches.map((branch) => branch.map(resolved)),
    suffix: records.flatMap((record, i) => reveals(record, raceCase.reveals[i] ?? 0)),
  };
}

/**
 * A case as a counterexample prints it: each part's HTTP calls (every call carries a token for
 * every restaurant and the record's restaurant as its context).
 */
function describeCase(engine: Engine, plan: Plan): string {
  const list = (calls: readonly Planned[]) =>
    calls
      .map(
        (p) =>
          `${callLine(engine, callOfPlanned(engine, p))}${p.hangUpAfterMs === undefined ? '' : ` (hung up after ${p.hangUpAfterMs} ms)`}`,
      )
      .join(', ') || 'nothing';
  return [
    `prefix: ${list(plan.prefix)}`,
    ...plan.branches.map((calls, i) => `${laneName(i + 1)}: ${list(calls)}`),
    `suffix: ${list(plan.suffix)}`,
  ].join('; ');
}

const roleOf = (kind: ChangeKind): ChangeRole => (kind === 'delete' ? 'deleteShift' : kind);

const callOfPlanned = (engine: Engine, p: Planned): Call => ({
  role: roleOf(p.kind),
  context: p.record.restaurant,
  grant: fullGrant(engine),
  id: p.byExternalId ? (p.record.externalId as string) : p.record.guid,
});

/**
 * Sends one call on `via` and times it. A branch's call that gets no answer (a dropped connection,
 * a timeout) is indeterminate; on the main connection (the prefix, the suffix), it ends the run
 * (`target-available`), but under `faults`, where it is indeterminate too.
 */
async function timed(
  engine: Engine,
  via: HttpClient | Connection,
  planned: Planned,
  where: Where,
  t0: number,
): Promise<Sent> {
  const sentAt = Date.now();
  const started = performance.now();
  const invokedAt = started - t0;
  const op = engine.operations[where.call.role];
  // The case says what its calls' events must be once it is checked (case-events.ts).
  const enter = (answer: Answer | undefined, answeredAt: number | undefined) =>
    enterCall(
      engine,
      where.request,
      answer?.response,
      [op],
      { sentAt: started, answeredAt },
      { pending: true, record: planned.record },
    );
  try {
    const answer = await sendOn(engine, via, where.request, [op], {
      enter: false,
      ...(planned.hangUpAfterMs === undefined ? {} : { hangUpAfterMs: planned.hangUpAfterMs }),
    });
    const answeredAt = performance.now();
    const events = enter(answer, answeredAt);
    const completedAt = answeredAt - t0;
    return { ...where, planned, answer, error: undefined, events, sentAt, invokedAt, completedAt };
  } catch (error) {
    if (!(error instanceof TargetUnavailable)) throw error;
    if (where.phase !== 'branch' && !engine.faults) {
      // The case ends here, unchecked: the call's events are zero or one, as any unanswered call's.
      enterCall(engine, where.request, undefined, [op], { sentAt: started, answeredAt: undefined });
      throw error;
    }
    return {
      ...where,
      planned,
      answer: undefined,
      error,
      events: enter(undefined, undefined),
      sentAt,
      invokedAt,
      completedAt: undefined,
    };
  }
}

/**
 * A sent call as the checker reads it, its answer first held to what holds in any order: the
 * status and body the spec documents; a 200's record, with the seed's fields. A 503 (storage
 * unavailable, a request timeout) is a documented answer that does not say whether the change
 * happened: indeterminate, as is no answer at all.
 */
function historyCallOf(engine: Engine, sent: Sent, record: RaceRecord): HistoryCall {
  const { planned, answer } = sent;
  const base = {
    phase: sent.phase,
    lane: sent.lane,
    record,
    kind: planned.kind,
    byExternalId: planned.byExternalId,
    invokedAt: sent.invokedAt,
    completedAt: sent.completedAt,
  };
  if (answer === undefined) {
    return {
      ...base,
      determinate: false,
      answer: undefined,
      noAnswer: String(sent.error?.message),
      earliest: sent.sentAt - CLOCK_SKEW_MS,
    };
  }
  const op = engine.operations[sent.call.role];
  const body = bodyOf(answer);
  const answered = { ...base, answer: changeAnswerOf(answer.status, body), noAnswer: undefined };
  const earliest = changeTimeOf(answer.response).earliest;
  const documented = op.responses.get('503');
  if (answer.status === 503 && documented !== undefined) {
    answer.matches(documented);
    return { ...answered, determinate: false, earliest };
  }
  answer.documented(op);
  if (answer.status === 200)
    checkRecordBody(answer, body, planned.record, { rule: 'record-fields' });
  return { ...answered, determinate: true, earliest };
}

const slot = (value: string | undefined): DateSlot =>
  value === undefined ? UNKNOWN_DATE : { value };

const modelStateOf = (state: RecordState): RecordModelState => ({
  deleted: state.deleted,
  createdDate: slot(state.dates.createdDate),
  modifiedDate: slot(state.dates.modifiedDate),
  deletedDate: state.deleted ? slot(state.dates.deletedDate) : undefined,
});

/** What the kit's knowledge can hold of the states a record may be in: what they agree on. */
function knowledgeOf(states: readonly RecordModelState[]): RecordState {
  const first = states[0] as RecordModelState;
  const dates: RecordState['dates'] = {};
  for (const name of DATE_FIELDS) {
    const values = new Set(
      states.map((s) => {
        const date = s[name];
        return date !== undefined && 'value' in date ? date.value : undefined;
      }),
    );
    const [only] = values;
    if (values.size === 1 && only !== undefined) dates[name] = only;
  }
  return { deleted: first.deleted, dates };
}

/**
 * The states each record may be in when a case starts: for a fresh target, what the knowledge
 * holds; for a live one, every state the cases before may have left it in.
 */
class RecordStarts {
  readonly #engine: Engine;
  /** The states the knowledge (one state) cannot hold, kept while it is the one a case set. */
  readonly #carried = new Map<
    string,
    { readonly knowledge: RecordState; readonly states: readonly RecordModelState[] }
  >();

  constructor(engine: Engine) {
    this.#engine = engine;
  }

  /** The states the record `guid` may be in now. */
  of(guid: string): readonly RecordModelState[] {
    const known = this.#engine.knowledge.get(guid);
    const kept = this.#carried.get(guid);
    if (known !== undefined && kept?.knowledge === known) return kept.states;
    const record = this.#engine.world.byGuid.get(guid) as WorldRecord;
    return [modelStateOf(known ?? { deleted: record.seedDeleted, dates: { ...record.seedDates } })];
  }

  /** After a case an order fits: each record may be in every state such an order leaves it in. */
  settle(finalStates: ReadonlyMap<string, readonly RecordModelState[]>): void {
    for (const [guid, states] of finalStates) {
      const knowledge = knowledgeOf(states);
      this.#engine.knowledge.set(guid, knowledge);
      if (states.length > 1) this.#carried.set(guid, { knowledge, states });
      else this.#carried.delete(guid);
    }
  }

  /** After a case no order fits (or none was found): the suffix's answers say what the records are. */
  readSuffix(sent: readonly Sent[]): void {
    for (const s of sent) {
      this.#carried.delete(s.planned.record.guid);
      if (s.phase === 'suffix' && s.answer !== undefined) {
        observe(this.#engine, this.#engine.knowledge, s.call, s.answer.response);
      }
    }
  }
}

/** A call of a case with its request made, ready to send. */
interface Prepared {
  readonly planned: Planned;
  readonly where: Where;
}

async function prepare(
  engine: Engine,
  planned: Planned,
  phase: RacePhase,
  lane: number,
): Promise<Prepared> {
  const call = callOfPlanned(engine, planned);
  return { planned, where: { phase, lane, call, request: await callToWire(engine, call) } };
}

/**
 * The branches, released together: each sends its first request in the same turn of the event
 * loop, then its next one as each answer comes, on its own connection.
 */
async function releaseBranches(
  engine: Engine,
  branches: readonly (readonly Prepared[])[],
  connections: readonly Connection[],
  t0: number,
): Promise<Sent[]> {
  const done = await Promise.all(
    branches.map(async (calls, i) => {
      const out: Sent[] = [];
      for (const { planned, where } of calls) {
        const one = await timed(engine, connections[i] as Connection, planned, where, t0);
        out.push(one);
        if (one.answer === undefined) break; // its connection is gone, and the branch with it
      }
      return out;
    }),
  );
  return done.flat();
}

/** Sends a case, from `t0`: the prefix in order, the branches at once, then the suffix; in the order sent. */
async function sendCase(engine: Engine, plan: Plan, t0: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  for (const planned of plan.prefix) {
    const { where } = await prepare(engine, planned, 'prefix', 0);
    sent.push(await timed(engine, engine.client, planned, where, t0));
  }
  const branches = await Promise.all(
    plan.branches.map((calls, i) =>
      Promise.all(calls.map((p) => prepare(engine, p, 'branch', i + 1))),
    ),
  );
  const connections = await Promise.all(
    plan.branches.map((_, i) => engine.client.connection(i + 1)),
  );
  sent.push(...(await releaseBranches(engine, branches, connections, t0)));
  for (const planned of plan.suffix) {
    const { where } = await prepare(engine, planned, 'suffix', 0);
    sent.push(await timed(engine, engine.client, planned, where, t0));
  }
  return sent.sort((a, b) => a.invokedAt - b.invokedAt);
}

/** The calls sent, as the checker reads them: one {@link RaceRecord} per record. */
function historyOf(engine: Engine, sent: readonly Sent[]): HistoryCall[] {
  const records = new Map<string, RaceRecord>();
  return sent.map((s) => {
    const { record } = s.planned;
    const raced = records.get(record.guid) ?? {
      kind: record.kind,
      guid: record.guid,
      ...(record.externalId === undefined ? {} : { externalId: record.externalId }),
    };
    records.set(record.guid, raced);
    return historyCallOf(engine, s, raced);
  });
}

/** The end of a call's interval: when it was answered, or never for an indeterminate one. */
const endOf = (call: HistoryCall) =>
  call.determinate ? (call.completedAt as number) : Number.POSITIVE_INFINITY;

/**
 * Counts each branch call as reaching its record, and each of `changed` (the calls that changed
 * their record in the order found) that is a branch call and overlapped another call of its
 * record as a raced change, when the case started from a record archived (deleted) or surely not:
 * from any state, the order found says nothing sure of what changed.
 */
function countRaces(
  engine: Engine,
  calls: readonly HistoryCall[],
  changed: readonly number[],
  start: (record: RaceRecord) => readonly RecordModelState[],
) {
  for (const call of calls) {
    if (call.phase === 'branch') engine.coverage.reachedRecord(roleOf(call.kind), false);
  }
  const known = (record: RaceRecord) => new Set(start(record).map((s) => s.deleted)).size === 1;
  for (const i of changed) {
    const call = calls[i] as HistoryCall;
    if (call.phase !== 'branch' || !known(call.record)) continue;
    const raced = calls.some(
      (other, j) =>
        j !== i &&
        other.record.guid === call.record.guid &&
        other.invokedAt < endOf(call) &&
        call.invokedAt < endOf(other),
    );
    if (raced) engine.coverage.changedRecord(roleOf(call.kind));
  }
}

/**
 * The states each record may be in when the case starts, taken once per record (a late event's
 * check of the case needs them after the next case has moved on).
 */
function startsOfCase(starts: RecordStarts): (record: RaceRecord) => readonly RecordModelState[] {
  const taken = new Map<string, readonly RecordModelState[]>();
  return (record) => {
    let states = taken.get(record.guid);
    if (states === undefined) {
      states = starts.of(record.guid);
      taken.set(record.guid, states);
    }
    return states;
  };
}

/**
 * Sends a case, checks its answers and, when the kit checks events, its events; throws a
 * Violation, or returns whether the history was undecided.
 */
async function runCase(
  engine: Engine,
  starts: RecordStarts,
  plan: Plan,
): Promise<'decided' | 'undecided'> {
  const t0 = performance.now();
  const sent = await sendCase(engine, plan, t0);
  const start = startsOfCase(starts);
  let decided = false;
  let events: CaseEvents | undefined;
  try {
    const calls = historyOf(engine, sent);
    const requests = sent.map((s) => s.request);
    const finalStates = engine.fresh === undefined;
    if (engine.events !== undefined) {
      const entries = sent.map((s) => s.events as LedgerCall);
      events = { calls, entries, requests, start, finalStates, t0 };
    }
    engine.coverage.checked('linearizable');
    const verdict = checkHistory(calls, start, { finalStates });
    countRaces(engine, calls, verdict.kind === 'linearizable' ? verdict.changed : [], start);
    if (verdict.kind === 'undecided') return 'undecided';
    if (verdict.kind === 'not-linearizable') {
      const report = raceReport(calls, requests, verdict, events && deliveredEvents(events));
      throw new RaceViolation(
        [`${report.summary}.`, report.detail, ...formatRaceTimeline(report)].join('\n'),
        report,
      );
    }
    const checked =
      engine.events === undefined || events === undefined
        ? verdict
        : await checkCaseEvents(engine.events, engine.coverage, events, verdict);
    if (checked.kind === 'undecided') return 'undecided';
    if (checked.kind === 'not-linearizable') throw new Error('a history that fit no longer fits');
    starts.settle(unsettled(sent, checked.finalStates));
    decided = true;
    return 'decided';
  } finally {
    if (!decided) {
      starts.readSuffix(sent);
      if (engine.events !== undefined && events !== undefined) {
        settleFailedCase(engine.events, events);
      }
    }
  }
}

/**
 * The states the records of a case with a call left without an answer (the target's drop, or the
 * kit's own hang-up), or answered 503, may be in when the next case starts: any. The target may
 * finish such a call after the case ended, after the suffix looked: a process that lost its
 * client finishes the request, and one killed mid-call, or that gave up waiting for its database,
 * leaves its statement to the database, which may commit it later.
 */
function unsettled(
  sent: readonly Sent[],
  finalStates: ReadonlyMap<string, readonly RecordModelState[]>,
): ReadonlyMap<string, readonly RecordModelState[]> {
  const open = sent.filter((s) => s.answer === undefined || s.answer.status === 503);
  if (open.length === 0) return finalStates;
  const states = new Map(finalStates);
  for (const s of open) states.set(s.planned.record.guid, ANY_RECORD_STATES);
  return states;
}

/** Each call's events as they came, for the report of a case whose answers fit no order. */
const deliveredEvents =
  (events: CaseEvents) =>
  (index: number): RaceEventReport[] =>
    (events.entries[index]?.events ?? []).map((arrival) => ({
      type: arrival.event.type,
      id: arrival.event.id,
      arrivedMs: Math.round((arrival.at - events.t0) * 100) / 100,
      mark: 'delivered',
    }));

/** The cases over the records of `pool`, each printed (in a counterexample) as its HTTP calls. */
function planArb(engine: Engine, pool: readonly WorldRecord[]): fc.Arbitrary<Plan> {
  const callArb = fc.record({ record: fc.nat({ max: 1 }), how: fc.nat({ max: 2 }) });
  const branchCallArb = fc.record({
    record: fc.nat({ max: 1 }),
    how: fc.nat({ max: 2 }),
    hangUp: fc.nat({ max: HANG_UP_AFTER_MS.length - 1 }),
  });
  return new RaceCaseArbitrary(
    fc.record({
      records: fc.uniqueArray(fc.nat({ max: Math.max(0, pool.length - 1) }), {
        minLength: 1,
        maxLength: 2,
      }),
      prefix: fc.array(callArb, { maxLength: 2 }),
      branches: fc.array(fc.array(branchCallArb, { minLength: 1, maxLength: 3 }), {
        minLength: 2,
        maxLength: 4,
      }),
      reveals: fc.array(fc.nat({ max: 2 }), { minLength: 2, maxLength: 2 }),
    }),
  ).map((raceCase) => {
    const plan = planOf(pool, raceCase);
    return Object.assign(plan, { [fc.toStringMethod]: () => describeCase(engine, plan) });
  });
}

/** The concurrent group's property. */
export function concurrentProperties(engine: Engine): PropertyDefinition[] {
  const pool = [...engine.world.employees, ...engine.world.shifts];
  const starts = new RecordStarts(engine);
  const plans = planArb(engine, pool);
  const races: PropertyDefinition = {
    name: 'concurrent.races',
    group: 'concurrent',
    summary:
      'unarchives, archives (by GUID and by external id) and shift deletes of the same records, sent at once on 2 to 4 connections, answer as some order of them would, one at a time (linearizable), the dates included',
    ...(pool.length > 0 ? {} : { notApplicable: 'the seed has no employees or shifts' }),
    build: (trial: Trial) =>
      fc.asyncProperty(
        plans,
        trial.predicate({ fresh: true }, async (plan) => {
          const attempts = trial.retrying ? ATTEMPTS_AFTER_FAILURE : 1;
          for (let attempt = 1; attempt <= attempts; attempt++) {
            if (attempt > 1) {
              await reseed(engine);
              engine.client.startRun();
              engine.runStart = cloneKnowledge(engine.knowledge);
            }
            if ((await runCase(engine, starts, plan)) === 'undecided') trial.undecided++;
          }
        }),
      ),
  };
  return [races];
}
