// The end of a run's check of its events, as one result of the report (`events.delivery`): the
// wait, bounded, for the events still due, the counts Jepsen's total-queue checker keeps (lost,
// recovered, unexpected, duplicated), and every finding of the events that no run of a property
// could be failed with (an event that came late, one for no call of the kit's, a lost one), with
// those that failed one. Its rule is the most telling finding's.
import type { EventLedger, EventsSummary } from './event-ledger.js';
import { firstFinding } from './event-ledger.js';
import type { PropertyResult } from './property-runner.js';
import { RULES } from './rules.js';

/** The name of the result. */
export const EVENTS_RESULT = 'events.delivery';

/** How many findings the result's message lists in full. */
const LISTED = 10;

/** The counts in words: `312 changes, 312 events; lost 0, recovered 0, …`. */
export function formatEventCounts(summary: EventsSummary): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return `${summary.changes} changes, ${summary.delivered} events; lost ${summary.lost}, recovered ${summary.recovered}, unexpected ${summary.unexpected}, duplicated ${summary.duplicated} (redelivered ${summary.redelivered}, refused ${summary.refused}); waited ${seconds(summary.waitedMs)} of ${seconds(summary.timeoutMs)} for the last`;
}

/**
 * Ends the run's check of its events: waits for the events still due (ending as soon as all have
 * come, at most the ledger's timeout), counts them, and gives the result.
 */
export async function finishEvents(
  events: EventLedger,
): Promise<{ readonly summary: EventsSummary; readonly result: PropertyResult }> {
  const { summary, findings } = await events.finish();
  const base = {
    name: EVENTS_RESULT,
    group: 'events' as const,
    summary:
      'every change emitted exactly one event, of its type, with its record, in the order of its record’s changes; no other event came; none was lost (lost, recovered, unexpected and duplicated counted, as Jepsen’s total-queue does)',
    runs: 1,
    requests: 0,
    durationMs: summary.waitedMs,
  };
  const counts = formatEventCounts(summary);
  const first = firstFinding(findings);
  if (first === undefined)
    return { summary, result: { ...base, status: 'passed', message: counts } };
  const listed = [first, ...findings.filter((f) => f !== first)].slice(0, LISTED);
  const more = findings.length > LISTED ? [`and ${findings.length - LISTED} more`] : [];
  return {
    summary,
    result: {
      ...base,
      status: 'failed',
      rule: first.rule,
      ruleText: RULES[first.rule],
      message: [counts, ...listed.map((f) => `[${f.rule}] ${f.message}`), ...more].join('\n'),
    },
  };
}
