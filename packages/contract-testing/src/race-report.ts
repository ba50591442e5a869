// A failing case of the concurrent group as a report shows it: the record, why no order of its
// calls fits (in the domain's words), and the history, as data (for the JSON and HTML reports)
// and as a text timeline with a column per connection.
import { branchLetter, type HistoryCall } from './concurrent-history.js';
import type { WireRequest } from './http-client.js';
import { Violation } from './rules.js';

/** One call of a failing case's history, as a report shows it. */
export interface RaceCallReport {
  /** Its number in the case (`#3`): the order the calls were sent in. */
  readonly number: number;
  /** Where it was sent: the sequential prefix, a branch, or the suffix. */
  readonly phase: 'prefix' | 'branch' | 'suffix';
  /** 0 for the prefix and the suffix (the main connection); the branch's number (1 is A). */
  readonly lane: number;
  /** `unarchive of employee 6a2b… (PAYROLL:10042)`, `archive by external id of …`. */
  readonly call: string;
  /** `PUT /labor/v1/employees/…/unarchive`. */
  readonly request: string;
  /** When it was sent and answered, ms from the case's start (no answer: absent). */
  readonly sentMs: number;
  readonly answeredMs?: number;
  /** `200 deleted false, modifiedDate …`, `503 STORAGE_UNAVAILABLE`, `no answer: …`. */
  readonly outcome: string;
  /** Whether the answer says if the change happened. */
  readonly determinate: boolean;
  /** One of the calls that cannot be ordered. */
  readonly marked: boolean;
}

/** A failing case of the concurrent group: what broke, and the history. */
export interface RaceReport {
  /** The record whose calls no order fits: `employee 6a2b… (PAYROLL:10042)`. */
  readonly record: string;
  /** Why no order fits, in a sentence. */
  readonly summary: string;
  /** The furthest order the search found, and why no call can come next. */
  readonly detail: string;
  /** The branches of the case (the connections besides the main one). */
  readonly branches: number;
  /** The calls, in the order they were sent. */
  readonly calls: readonly RaceCallReport[];
}

/** The report of a failing history; `marked` are the indices of the calls that cannot be ordered. */
export function raceReport(
  calls: readonly HistoryCall[],
  requests: readonly WireRequest[],
  verdict: {
    readonly summary: string;
    readonly detail: string;
    readonly marked: readonly number[];
    readonly record: { readonly label: string };
  },
): RaceReport {
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    record: verdict.record.label,
    summary: verdict.summary,
    detail: verdict.detail,
    branches: Math.max(0, ...calls.map((c) => c.lane)),
    calls: calls.map((call, i) => {
      const req = requests[i] as WireRequest;
      const how =
        call.kind === 'unarchive' ? '' : call.byExternalId ? ' by external id' : ' by GUID';
      return {
        number: i + 1,
        phase: call.phase,
        lane: call.lane,
        call: `${call.kind}${how} of ${call.record.label}`,
        request: `${req.method} ${req.path}`,
        sentMs: round(call.invokedAt),
        ...(call.completedAt === undefined ? {} : { answeredMs: round(call.completedAt) }),
        outcome: call.outcome,
        determinate: call.determinate,
        marked: verdict.marked.includes(i),
      };
    }),
  };
}

const COLUMN = 22;

/** The lanes of a report: the main connection, then each branch. */
export const laneNames = (report: RaceReport): string[] => [
  'prefix and suffix',
  ...Array.from({ length: report.branches }, (_, i) => `branch ${branchLetter(i + 1)}`),
];

/**
 * The history as text: a row per event (a call sent ▶, answered ◀), a column per connection, the
 * calls that cannot be ordered marked ✘; then each call in full.
 */
export function formatRaceTimeline(report: RaceReport): string[] {
  const lanes = laneNames(report);
  const events = report.calls.flatMap((call) => {
    const mark = call.marked ? ' ✘' : '';
    const sent = {
      at: call.sentMs,
      lane: call.lane,
      text: `▶ #${call.number} ${call.call.split(' of ')[0]}`,
    };
    if (call.answeredMs === undefined) return [sent];
    const status = call.outcome.split(' ')[0];
    const tail = call.determinate ? '' : ' (?)';
    return [
      sent,
      { at: call.answeredMs, lane: call.lane, text: `◀ #${call.number} ${status}${tail}${mark}` },
    ];
  });
  events.sort((a, b) => a.at - b.at);
  const cell = (text: string) => text.slice(0, COLUMN - 1).padEnd(COLUMN);
  const lines = [
    "timeline (ms from the case's start; a column per connection; ▶ sent, ◀ answered, (?) indeterminate, ✘ cannot be ordered):",
    `  ${'ms'.padStart(8)}  ${lanes.map(cell).join('').trimEnd()}`,
  ];
  for (const event of events) {
    const cells = lanes.map((_, lane) => cell(lane === event.lane ? event.text : ''));
    lines.push(`  ${event.at.toFixed(2).padStart(8)}  ${cells.join('').trimEnd()}`);
  }
  lines.push('calls:');
  for (const call of report.calls) {
    const where = call.phase === 'branch' ? `branch ${branchLetter(call.lane)}` : call.phase;
    lines.push(
      `  ${call.marked ? '✘' : ' '} #${call.number} ${call.call} (${where}): ${call.request} -> ${call.outcome}`,
    );
  }
  return lines;
}

/** A broken rule of the concurrent group, with the history that shows it. */
export class RaceViolation extends Violation {
  constructor(
    detail: string,
    /** The failing case's history. */
    readonly race: RaceReport,
  ) {
    super('linearizable', detail);
  }
}
