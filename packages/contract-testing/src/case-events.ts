// The events of a concurrent case, held to its history once its answers fit an order: each call
// with an event changed its record, in the order its events arrived (record-events-model.ts).
// Read strictly (a call without an event changed nothing), the history must fit: then each call's
// events are settled (a change, none, or zero or one for a call that may have changed its record
// in another order). Read loosely (a call without an event may have changed it), a history that
// fits only so lacks an event: the case waits for it, bounded by the events timeout, and is a lost
// event past it. One that does not fit even so shows events in the wrong order (it fits with their
// order aside), or events a call cannot have emitted: two calls that each say they made one change
// (a race: `linearizable`), or a no-op that emitted one.

import {
  checkHistory,
  type HistoryCall,
  type HistoryVerdict,
  type NamedRace,
  type NotLinearizable,
  type RaceRecord,
} from './concurrent-history.js';
import type { CoverageTally } from './coverage.js';
import {
  callWords,
  type EventFinding,
  type EventLedger,
  eventMismatch,
  eventWords,
  type LedgerCall,
} from './event-ledger.js';
import type { WireRequest } from './http-client.js';
import {
  formatRaceTimeline,
  type RaceEventReport,
  RaceViolation,
  raceReport,
} from './race-report.js';
import type { EventReading } from './record-events-model.js';
import { eventTypeOf } from './record-events-model.js';
import type { RecordModelState } from './record-model.js';
import { type RuleName, Violation } from './rules.js';

/** A case as its events are checked: its history, its calls' entries, its requests. */
export interface CaseEvents {
  readonly calls: readonly HistoryCall[];
  readonly entries: readonly LedgerCall[];
  readonly requests: readonly WireRequest[];
  /** The states each record may be in when the case started. */
  readonly start: (record: RaceRecord) => readonly RecordModelState[];
  /** Whether the states each record may end in are wanted (a live target). */
  readonly finalStates: boolean;
  /** When the case started (`performance.now()`). */
  readonly t0: number;
}

type Linearizable = Extract<HistoryVerdict, { kind: 'linearizable' }>;

/** What the events of a case say, read each way in turn. */
type EventsVerdict =
  | { readonly kind: 'fits'; readonly verdict: Linearizable }
  | { readonly kind: 'undecided'; readonly verdict: HistoryVerdict }
  | { readonly kind: 'lacks'; readonly strict: NotLinearizable; readonly loose: Linearizable }
  | {
      readonly kind: 'wrong';
      readonly rule: RuleName;
      readonly verdict: NotLinearizable;
      readonly race: NamedRace | undefined;
    };

/** The history with each call's first event: its rank among its record's, and when it came. */
function observed(events: CaseEvents): HistoryCall[] {
  const firsts = events.entries.map((entry) => entry.events[0]);
  const ranks = new Map<number, number>();
  const byRecord = new Map<string, number[]>();
  for (const [i, call] of events.calls.entries()) {
    if (firsts[i] === undefined) continue;
    byRecord.set(call.record.guid, [...(byRecord.get(call.record.guid) ?? []), i]);
  }
  for (const indices of byRecord.values()) {
    const arrival = (i: number) => firsts[i]?.at ?? 0;
    for (const [rank, i] of [...indices].sort((a, b) => arrival(a) - arrival(b)).entries()) {
      ranks.set(i, rank);
    }
  }
  return events.calls.map((call, i) => {
    const first = firsts[i];
    const rank = ranks.get(i);
    return first === undefined || rank === undefined
      ? call
      : { ...call, event: { rank, at: first.at - events.t0 } };
  });
}

const overlap = (a: HistoryCall, b: HistoryCall) => {
  const end = (c: HistoryCall) =>
    c.determinate || c.event !== undefined
      ? Math.min(c.completedAt ?? Number.POSITIVE_INFINITY, c.event?.at ?? Number.POSITIVE_INFINITY)
      : Number.POSITIVE_INFINITY;
  return a.invokedAt < end(b) && b.invokedAt < end(a);
};

/**
 * Why events no order allows are wrong, in the domain's words: two calls of one direction that
 * overlapped and each emitted the event of a change (a race that made one change twice), else a
 * call whose event says it changed a record it finds changed (an event for a no-op).
 */
function existenceRace(
  calls: readonly HistoryCall[],
  verdict: NotLinearizable,
): { readonly rule: RuleName; readonly race: NamedRace | undefined } {
  const evented = verdict.recordCalls.filter((i) => calls[i]?.event !== undefined);
  const direction = (c: HistoryCall) => (c.kind === 'unarchive' ? 'up' : 'down');
  for (const [n, a] of evented.entries()) {
    for (const b of evented.slice(n + 1)) {
      const [x, y] = [calls[a] as HistoryCall, calls[b] as HistoryCall];
      if (direction(x) === direction(y) && overlap(x, y)) {
        return { rule: 'linearizable', race: { kind: 'changed-twice', calls: [a, b] } };
      }
    }
  }
  const noOp = verdict.blocked.find((b) => calls[b.index]?.event !== undefined);
  if (noOp !== undefined) {
    return {
      rule: 'no-event-without-change',
      race: { kind: 'event-for-no-op', calls: [noOp.index] },
    };
  }
  return { rule: 'linearizable', race: undefined };
}

/**
 * Two calls whose events came in the wrong order, from the loose reading's furthest order: the
 * last change placed with an event, and a call it blocks whose event came before.
 */
function orderRace(calls: readonly HistoryCall[], loose: NotLinearizable): NamedRace | undefined {
  const placed = [...loose.deepest].reverse().find((i) => calls[i]?.event !== undefined);
  const rank = (i: number) => calls[i]?.event?.rank ?? -1;
  if (placed === undefined) return undefined;
  const early = loose.blocked.find(
    (b) => calls[b.index]?.event !== undefined && rank(b.index) < rank(placed),
  );
  return early === undefined
    ? undefined
    : { kind: 'events-out-of-order', calls: [placed, early.index] };
}

/** Reads the case's events strictly, then loosely, then with their order aside. */
function readEvents(events: CaseEvents, calls: readonly HistoryCall[]): EventsVerdict {
  const check = (reading: EventReading) =>
    checkHistory(calls, events.start, { finalStates: events.finalStates, events: reading });
  const strict = check('strict');
  if (strict.kind === 'linearizable') return { kind: 'fits', verdict: strict };
  if (strict.kind === 'undecided') return { kind: 'undecided', verdict: strict };
  const loose = check('loose');
  if (loose.kind === 'linearizable') return { kind: 'lacks', strict, loose };
  if (loose.kind === 'undecided') return { kind: 'undecided', verdict: loose };
  const unordered = check('unordered');
  if (unordered.kind === 'linearizable') {
    return { kind: 'wrong', rule: 'event-order', verdict: loose, race: orderRace(calls, loose) };
  }
  if (unordered.kind === 'undecided') return { kind: 'undecided', verdict: unordered };
  return { kind: 'wrong', verdict: unordered, ...existenceRace(calls, unordered) };
}

/** A call's events as the race report draws them, marked by what the check made of them. */
function eventReports(
  events: CaseEvents,
  index: number,
  race: NamedRace | undefined,
): RaceEventReport[] {
  const entry = events.entries[index];
  const call = events.calls[index] as HistoryCall;
  if (entry === undefined) return [];
  const named = race?.calls.includes(index) ?? false;
  if (race?.kind === 'event-lost' && named) {
    return [{ type: eventTypeOf(call.kind), mark: 'lost' }];
  }
  const wrongFirst =
    named &&
    (race?.kind === 'event-for-no-op' ||
      race?.kind === 'events-out-of-order' ||
      (race?.kind === 'changed-twice' && race.calls[1] === index));
  const first: RaceEventReport['mark'] =
    race?.kind === 'events-out-of-order' && named ? 'out-of-order' : 'unexpected';
  return entry.events.map((arrival, n) => ({
    type: arrival.event.type,
    id: arrival.event.id,
    arrivedMs: Math.round((arrival.at - events.t0) * 100) / 100,
    mark: n > 0 ? 'unexpected' : wrongFirst ? first : 'delivered',
  }));
}

/** The failure of a case's events, with its history drawn as the race report draws one. */
function raceFailure(
  events: CaseEvents,
  calls: readonly HistoryCall[],
  rule: RuleName,
  verdict: NotLinearizable,
  race: NamedRace | undefined,
): RaceViolation {
  const named: NotLinearizable = {
    ...verdict,
    race,
    marked: race?.calls ?? verdict.marked,
  };
  const report = raceReport(calls, events.requests, named, (i) => eventReports(events, i, race));
  return new RaceViolation(
    [`${report.summary}.`, report.detail, ...formatRaceTimeline(report)].join('\n'),
    report,
    rule,
  );
}

/** The events of the case's calls judged one by one: how many each has, and what they say. */
function eachCallsEvents(coverage: CoverageTally, events: CaseEvents): EventFinding | undefined {
  for (const [i, entry] of events.entries.entries()) {
    const call = events.calls[i] as HistoryCall;
    const [first, ...more] = entry.events;
    if (first === undefined) continue;
    if (more.length > 0) {
      const ids = entry.events.map((a) => eventWords(a.event)).join(' and ');
      return call.determinate
        ? {
            rule: 'event-per-change',
            message: `${entry.events.length} events came for ${callWords(entry)}: ${ids}; one change emits one event (a redelivery keeps its id)`,
          }
        : {
            rule: 'indeterminate-event',
            message: `${entry.events.length} events came for ${callWords(entry)}, whose answer does not say whether it happened: ${ids}; such a call emits zero events or one`,
          };
    }
    const mismatch = eventMismatch(coverage, entry, first.event);
    if (mismatch !== undefined) return mismatch;
  }
  return undefined;
}

/**
 * Settles what each call's events must be once the case's events fit (in the order their events
 * arrived, so that the order of a record's events across cases is followed): a call with an event
 * changed its record; one refused changed nothing; any other may have changed its record in
 * another order, and an event for it later is held to the case again.
 */
function settle(ledger: EventLedger, events: CaseEvents, recheck: () => EventFinding | undefined) {
  const arrival = (i: number) => events.entries[i]?.events[0]?.at ?? Number.POSITIVE_INFINITY;
  const order = [...events.entries.keys()].sort((a, b) => arrival(a) - arrival(b));
  for (const i of order) {
    const entry = events.entries[i] as LedgerCall;
    const call = events.calls[i] as HistoryCall;
    if (!call.determinate) ledger.settle(entry, 'indeterminate', '', recheck);
    else if (entry.events.length > 0) ledger.settle(entry, 'change');
    else if (call.answer?.status !== 200) {
      const code = call.answer?.code === undefined ? '' : ` ${call.answer.code}`;
      ledger.settle(entry, 'none', `refused with ${call.answer?.status}${code}`);
    } else ledger.settle(entry, 'maybe', '', recheck);
  }
}

/**
 * After a case that failed (or could not be decided): each call's events as far as its answer
 * says, but for those its check settled already.
 */
export function settleFailedCase(ledger: EventLedger, events: CaseEvents): void {
  for (const [i, entry] of events.entries.entries()) {
    const call = events.calls[i] as HistoryCall;
    if (entry.expectation !== 'pending') continue;
    if (entry.events.length > 0) ledger.settle(entry, 'change');
    else if (call.determinate && call.answer?.status !== 200)
      ledger.settle(entry, 'none', 'refused');
    else ledger.settle(entry, call.determinate ? 'maybe' : 'indeterminate');
  }
}

/**
 * Holds a case's events to its history, its answers found to fit an order (`answers`): waits,
 * bounded, for the events its changes are due, then reads them (see the module's comment). Throws
 * the broken rule (a race report with the events drawn when the history shows it); returns the
 * verdict with the events as observations, whose final states are the records' now.
 */
export async function checkCaseEvents(
  ledger: EventLedger,
  coverage: CoverageTally,
  events: CaseEvents,
  answers: Linearizable,
): Promise<HistoryVerdict> {
  const due = new Map<string, number>();
  for (const i of answers.changes) {
    const guid = (events.calls[i] as HistoryCall).record.guid;
    due.set(guid, (due.get(guid) ?? 0) + 1);
  }
  const arrived = (guid: string) =>
    events.entries.filter(
      (entry, i) => entry.events.length > 0 && events.calls[i]?.record.guid === guid,
    ).length;
  const enough = () =>
    ledger.runFindings.length > 0 || [...due].every(([guid, n]) => arrived(guid) >= n);
  if (!(await ledger.waitUntil(enough, ledger.runWaitMs))) ledger.runWaitRanOut();
  let deadline: number | undefined;
  for (;;) {
    const found = ledger.runFindings[0] ?? eachCallsEvents(coverage, events);
    if (found !== undefined) throw new Violation(found.rule, found.message);
    const calls = observed(events);
    for (const indices of new Set(
      calls.filter((c) => c.event !== undefined).map((c) => c.record.guid),
    )) {
      if (calls.filter((c) => c.record.guid === indices && c.event !== undefined).length > 1) {
        coverage.checked('event-order');
      }
    }
    const read = readEvents(events, calls);
    switch (read.kind) {
      case 'fits':
        settle(ledger, events, () => recheckCase(events));
        return read.verdict;
      case 'undecided':
        return read.verdict;
      case 'lacks': {
        deadline ??= performance.now() + ledger.timeoutMs;
        const count = () => events.entries.reduce((n, entry) => n + entry.events.length, 0);
        const before = count();
        const more = await ledger.waitUntil(
          () => count() > before || ledger.runFindings.length > 0,
          deadline - performance.now(),
        );
        if (more) continue;
        const lost = read.loose.changes.filter((i) => calls[i]?.event === undefined);
        // Counted lost at the end of the run, unless their events come by then.
        for (const i of lost) ledger.settle(events.entries[i] as LedgerCall, 'change');
        throw raceFailure(events, calls, 'events-delivered', read.strict, {
          kind: 'event-lost',
          calls: lost,
        });
      }
      case 'wrong':
        throw raceFailure(events, calls, read.rule, read.verdict, read.race);
      default: {
        const unknown: never = read;
        return unknown;
      }
    }
  }
}

/**
 * The case held to its events again, once an event came for a call that may have changed its
 * record in another order than the one found (a late event): any order that fits, its calls
 * without events free to have changed their record or not.
 */
function recheckCase(events: CaseEvents): EventFinding | undefined {
  const calls = observed(events);
  const read = readEvents(events, calls);
  if (read.kind !== 'wrong') return undefined;
  const failure = raceFailure(events, calls, read.rule, read.verdict, read.race);
  return { rule: read.rule, message: `${failure.race.summary} (an event that came late)` };
}
