// A failing case of the concurrent group as a report shows it: the history as data (for the JSON
// and HTML reports), and every word the reports use for it, here alone: how a call and where it
// was sent are named, why no order of the calls fits, and the text timeline with a column per
// connection.
import type { HistoryCall, NotLinearizable, RacePhase, RaceRecord } from './concurrent-history.js';
import type { WireRequest } from './http-client.js';
import { eventTypeOf } from './record-events-model.js';
import {
  type ChangeAnswer,
  type ChangeKind,
  describeAnswer,
  describeState,
} from './record-model.js';
import { type RuleName, Violation } from './rules.js';

/** An event of a call of a failing case, or one that should have come (when the kit checks events). */
export interface RaceEventReport {
  /** Its type: `employee.archived`, `employee.unarchived`, `shift.deleted`. */
  readonly type: string;
  /** Its id (`webhook-id`); absent for a lost one. */
  readonly id?: string;
  /** When it arrived, ms from the case's start; absent for a lost one. */
  readonly arrivedMs?: number;
  /**
   * What the check made of it: `delivered` as it should be; `unexpected`, an event no order of
   * the calls lets it emit (a second one, one for a change it did not make); `out-of-order`, after
   * the event of a change that comes after its own; `lost`, a change's event that never came.
   */
  readonly mark: 'delivered' | 'unexpected' | 'out-of-order' | 'lost';
}

/** One call of a failing case's history, as a report shows it. */
export interface RaceCallReport {
  /** Its number in the case (`#3`): the order the calls were sent in. */
  readonly number: number;
  /** Where it was sent: the sequential prefix, a branch, or the suffix. */
  readonly phase: RacePhase;
  /** 0 for the prefix and the suffix (the main connection); the branch's number (1 is A). */
  readonly lane: number;
  /** The change it asks for. */
  readonly kind: ChangeKind;
  /** Whether its path names the record by external id (by GUID otherwise). */
  readonly byExternalId: boolean;
  /** The record it changes. */
  readonly record: RaceRecord;
  /** Its method and path: `PUT`, `/labor/v1/employees/…/unarchive`. */
  readonly request: { readonly method: string; readonly path: string };
  /** When it was sent, ms from the case's start. */
  readonly sentMs: number;
  /** When it was answered, ms from the case's start; absent when no answer came. */
  readonly answeredMs?: number;
  /** What the answer said: its status, code, `deleted` and dates; absent when none came. */
  readonly answer?: ChangeAnswer;
  /** Why no answer came (a dropped connection, a timeout); absent when one did. */
  readonly noAnswer?: string;
  /** Whether the answer says if the change happened (not a 503, not a missing answer). */
  readonly determinate: boolean;
  /** One of the calls that cannot be ordered. */
  readonly marked: boolean;
  /** Its events, and those that should have come; absent when the kit did not check events. */
  readonly events?: readonly RaceEventReport[];
}

/** A failing case of the concurrent group: what broke, and the history. */
export interface RaceReport {
  /** The record whose calls no order fits. */
  readonly record: RaceRecord;
  /** Why no order fits, in a sentence. */
  readonly summary: string;
  /** The furthest order the search found, and why no call can come next. */
  readonly detail: string;
  /** The branches of the case (the connections besides the main one). */
  readonly branches: number;
  /** The calls, in the order they were sent. */
  readonly calls: readonly RaceCallReport[];
}

/** How a call names its change: `unarchive`, `archive by GUID`, `delete by external id`. */
interface ChangeCall {
  readonly kind: ChangeKind;
  readonly byExternalId: boolean;
}

/** Where a call was sent. */
interface SentOn {
  readonly phase: RacePhase;
  readonly lane: number;
}

/** What came back for a call. */
interface Outcome {
  readonly answer?: ChangeAnswer | undefined;
  readonly noAnswer?: string | undefined;
}

/** A connection's name: the main one's (lane 0), or a branch's by its letter (lane 1 is A). */
export const laneName = (lane: number): string =>
  lane === 0 ? 'prefix and suffix' : `branch ${String.fromCharCode(64 + lane)}`;

/** Where a call was sent: `prefix`, `branch A`, `suffix`. */
const placeName = (call: SentOn): string =>
  call.phase === 'branch' ? laneName(call.lane) : call.phase;

/** A record as the reports name it: `employee 6a2b9c4d-… (PAYROLL:10042)`. */
const recordName = (record: RaceRecord): string =>
  `${record.kind} ${record.guid}${record.externalId === undefined ? '' : ` (${record.externalId})`}`;

/** A call's change, and how it names its record: `unarchive`, `archive by external id`. */
const changeName = (call: ChangeCall): string =>
  call.kind === 'unarchive'
    ? call.kind
    : `${call.kind} ${call.byExternalId ? 'by external id' : 'by GUID'}`;

/** A call as the explanations name it: `#3 unarchive (branch A)`. */
const callName = (number: number, call: ChangeCall & SentOn): string =>
  `#${number} ${changeName(call)} (${placeName(call)})`;

/** What came back, in a few words: `200 deleted true, …`, `503 STORAGE_UNAVAILABLE`, `no answer: …`. */
export const outcomeText = (call: Outcome): string =>
  call.answer === undefined ? `no answer: ${call.noAnswer}` : describeAnswer(call.answer);

/** The answer's status, or that none came. */
const statusText = (call: Outcome): string =>
  call.answer === undefined ? 'no answer' : String(call.answer.status);

/** Why no order fits, in a sentence: the race the history shows, or which record's calls. */
function summaryOf(calls: readonly HistoryCall[], verdict: NotLinearizable): string {
  const { record, race } = verdict;
  const name = recordName(record);
  if (race === undefined) {
    return `no order of the ${verdict.recordCalls.length} calls on ${name} gives the answers they got`;
  }
  const [a = 0, b = 0] = race.calls;
  const first = calls[a] as HistoryCall;
  const second = calls[b] as HistoryCall;
  const archived = record.kind === 'shift' ? 'deleted' : 'archived';
  const both = `${callName(a + 1, first)} and ${callName(b + 1, second)}`;
  const verb = first.kind === 'unarchive' ? 'unarchived' : archived;
  switch (race.kind) {
    case 'changed-twice':
      return `two ${first.kind === 'unarchive' ? 'unarchives' : record.kind === 'shift' ? 'deletes' : 'archives'} of ${name}, ${both}, each emitted ${eventTypeOf(first.kind)} (each says it ${verb} the ${record.kind}): in any order, the second finds the ${record.kind} ${verb} already and changes nothing, and a call that changes nothing emits no event: the ${record.kind} was ${verb} twice (a lost update)`;
    case 'event-for-no-op':
      return `${callName(a + 1, first)} emitted ${eventTypeOf(first.kind)}, yet in every order its answers allow it finds ${name} ${first.kind === 'unarchive' ? 'not archived' : archived} already and changes nothing: a call that changes nothing emits no event`;
    case 'event-lost': {
      const names = race.calls.map((i) => callName(i + 1, calls[i] as HistoryCall));
      return `no order of the calls on ${name} gives their answers with only the events that came: a call with no event ${verb} the ${record.kind} (in the order found, ${names.join(' and ')}), and no ${eventTypeOf(first.kind)} event came for it by the end of the events timeout: a change without its event`;
    }
    case 'events-out-of-order':
      return `the events of ${name} came in an order no order of its calls that gives their answers allows: the ${eventTypeOf(second.kind)} event of ${callName(b + 1, second)} came before the ${eventTypeOf(first.kind)} event of ${callName(a + 1, first)}, whose change the furthest order found puts first`;
    case 'change-lost':
      return `${callName(a + 1, first)} answered 200 with ${name} ${archived}, but ${callName(b + 1, second)}, sent after that answer, found it not ${archived} (${outcomeText(second)}), and no unarchive that could come between them changed it: the ${record.kind === 'shift' ? 'delete' : 'archive'} was lost`;
    case 'unarchived-twice':
      return `two unarchives of ${name}, ${both}, both answered 200: in any order, the second finds the employee not archived and must answer 400 EMPLOYEE_NOT_ARCHIVED`;
    case 'deleted-dates-differ':
      return `two ${record.kind === 'shift' ? 'deletes' : 'archives'} of ${name}, ${both}, answered different deletedDates, ${first.answer?.deletedDate} and ${second.answer?.deletedDate}: in any order, the second finds the ${record.kind} ${archived} and must answer its deletedDate unchanged`;
    default: {
      const unknown: never = race.kind;
      return unknown;
    }
  }
}

/** The furthest order the search found, the state after it, and why no call can come next. */
function detailOf(calls: readonly HistoryCall[], verdict: NotLinearizable): string {
  const { kind } = verdict.record;
  const named = (i: number) => callName(i + 1, calls[i] as HistoryCall);
  const state = describeState(kind, verdict.state);
  const after =
    verdict.deepest.length === 0
      ? `At the start the ${kind} is ${state}`
      : `The furthest order found is ${verdict.deepest.map(named).join(', ')}; after it the ${kind} is ${state}`;
  const blocked = verdict.blocked.map((b) => `${named(b.index)} ${b.why}`);
  return `${after}, and no call can come next: ${blocked.join('; ')}.`;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * The report of a failing history: why no order fits, in the domain's words, and each call as
 * data, the calls that cannot be ordered marked.
 */
export function raceReport(
  calls: readonly HistoryCall[],
  requests: readonly WireRequest[],
  verdict: NotLinearizable,
  eventsOf?: (index: number) => readonly RaceEventReport[],
): RaceReport {
  return {
    record: verdict.record,
    summary: summaryOf(calls, verdict),
    detail: detailOf(calls, verdict),
    branches: Math.max(0, ...calls.map((c) => c.lane)),
    calls: calls.map((call, i): RaceCallReport => {
      const { method, path } = requests[i] as WireRequest;
      return {
        number: i + 1,
        phase: call.phase,
        lane: call.lane,
        kind: call.kind,
        byExternalId: call.byExternalId,
        record: call.record,
        request: { method, path },
        sentMs: round(call.invokedAt),
        ...(call.completedAt === undefined ? {} : { answeredMs: round(call.completedAt) }),
        ...(call.answer === undefined ? {} : { answer: call.answer }),
        ...(call.noAnswer === undefined ? {} : { noAnswer: call.noAnswer }),
        determinate: call.determinate,
        marked: verdict.marked.includes(i),
        ...(eventsOf === undefined ? {} : { events: eventsOf(i) }),
      };
    }),
  };
}

/** The lanes of a report: the main connection, then each branch. */
export const laneNames = (report: RaceReport): string[] =>
  Array.from({ length: report.branches + 1 }, (_, lane) => laneName(lane));

/** A point of a call on the timeline: when it was sent, or answered. */
interface TimelinePoint {
  readonly at: number;
  readonly lane: number;
  /** `▶ #1 unarchive`, `◀ #1 200 (?) ✘`. */
  readonly text: string;
}

/** A mark of an event on the lane of the call that caused it. */
export interface EventMark {
  /** Where on the timeline: when it arrived, or, for a lost one, when its call was answered. */
  readonly at: number;
  readonly event: RaceEventReport;
  /** Whether it is drawn as wrong (red): lost, unexpected or out of order. */
  readonly wrong: boolean;
}

/** The marks of a call's events, each on its lane, the reports' one way to place them. */
export function eventMarks(call: RaceCallReport): EventMark[] {
  return (call.events ?? []).map((event) => ({
    at: event.arrivedMs ?? call.answeredMs ?? call.sentMs,
    event,
    wrong: event.mark !== 'delivered',
  }));
}

const MARK_WORDS: Readonly<Record<RaceEventReport['mark'], string>> = {
  delivered: '',
  unexpected: ' ✘ unexpected',
  'out-of-order': ' ✘ out of order',
  lost: ' ✘ lost',
};

/** An event's mark in words: `✉ #2 shift.deleted ✘ unexpected`. */
export const eventMarkText = (call: RaceCallReport, mark: EventMark): string =>
  `✉ #${call.number} ${mark.event.type}${MARK_WORDS[mark.event.mark]}`;

/** A call's points on the timeline: sent, then answered (when it was), then its events. */
function timelinePoints(call: RaceCallReport): TimelinePoint[] {
  const sent = { at: call.sentMs, lane: call.lane, text: `▶ #${call.number} ${changeName(call)}` };
  const events = eventMarks(call).map((mark) => ({
    at: mark.at,
    lane: call.lane,
    text: eventMarkText(call, mark),
  }));
  if (call.answeredMs === undefined) return [sent, ...events];
  const tail = `${call.determinate ? '' : ' (?)'}${call.marked ? ' ✘' : ''}`;
  const text = `◀ #${call.number} ${statusText(call)}${tail}`;
  return [sent, { at: call.answeredMs, lane: call.lane, text }, ...events];
}

/** A call's bar label in the HTML timeline: `#1 unarchive → 200 ✘`. */
export const barLabel = (call: RaceCallReport): string =>
  `#${call.number} ${changeName(call)} → ${statusText(call)}${call.marked ? ' ✘' : ''}`;

/** A call's change on its record: `unarchive of employee 6a2b9c4d-… (PAYROLL:10042)`. */
export const callWhat = (call: RaceCallReport): string =>
  `${changeName(call)} of ${recordName(call.record)}`;

/** The call's request line: `PUT /labor/v1/employees/…/unarchive`. */
export const requestLine = (call: RaceCallReport): string =>
  `${call.request.method} ${call.request.path}`;

/** A call's events in words: `; events: shift.deleted 3f0c… (at 2.31 ms)`. */
export const eventsText = (call: RaceCallReport): string => {
  if (call.events === undefined) return '';
  if (call.events.length === 0) return '; no event';
  const one = (e: RaceEventReport) =>
    e.mark === 'lost'
      ? `${e.type} lost`
      : `${e.type} ${e.id} at ${e.arrivedMs} ms${MARK_WORDS[e.mark]}`;
  return `; events: ${call.events.map(one).join(', ')}`;
};

/** A call in full: `#1 unarchive of employee … (branch A): PUT /… -> 200 deleted false, …`. */
const callLine = (call: RaceCallReport): string =>
  `#${call.number} ${callWhat(call)} (${placeName(call)}): ${requestLine(call)} -> ${outcomeText(call)}${eventsText(call)}`;

const COLUMN = 22;

/**
 * The history as text: a row per point (a call sent ▶, answered ◀), a column per connection, the
 * calls that cannot be ordered marked ✘; then each call in full.
 */
export function formatRaceTimeline(report: RaceReport): string[] {
  const lanes = laneNames(report);
  const points = report.calls.flatMap(timelinePoints).sort((a, b) => a.at - b.at);
  const cell = (text: string) => text.slice(0, COLUMN - 1).padEnd(COLUMN);
  const lines = [
    `timeline (ms from the case's start; a column per connection; ▶ sent, ◀ answered, (?) indeterminate, ✘ cannot be ordered${report.calls.some((c) => c.events !== undefined) ? ', ✉ its event arrived' : ''}):`,
    `  ${'ms'.padStart(8)}  ${lanes.map(cell).join('').trimEnd()}`,
  ];
  for (const point of points) {
    const cells = lanes.map((_, lane) => cell(lane === point.lane ? point.text : ''));
    lines.push(`  ${point.at.toFixed(2).padStart(8)}  ${cells.join('').trimEnd()}`);
  }
  lines.push('calls:');
  for (const call of report.calls) lines.push(`  ${call.marked ? '✘' : ' '} ${callLine(call)}`);
  return lines;
}

/**
 * A broken rule of the concurrent group, with the history that shows it: `linearizable`, or, when
 * the answers fit and the events do not, the rule of the events it breaks.
 */
export class RaceViolation extends Violation {
  constructor(
    detail: string,
    /** The failing case's history. */
    readonly race: RaceReport,
    rule: RuleName = 'linearizable',
  ) {
    super(rule, detail);
  }
}
