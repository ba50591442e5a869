// The kit given an app's events in process (its recorder as the app's onEvent), against the
// reference router over the memory store: right, a default run passes with every change's event
// held to its call and no false alarm, and ends without waiting out the events timeout; wrong one
// way each, the run fails, and only the rule of that way leads the report. The lost update whose
// answers agree (shift deletes that skip the version check and date their change alike) is
// caught only by its events, and the HTML report draws them.
import { expect, it } from 'vitest';
import { causeFirst } from '../src/failure-order.js';
import {
  type ContractOptions,
  formatReport,
  type PropertyResult,
  type Report,
  toHtmlReport,
} from '../src/index.js';
import { eventRuns, type RecorderFault, recordedTarget } from './support/event-targets.js';

/** A run of the kit against a target, its events checked. */
const run = eventRuns(41);

/**
 * The run failed, `rule` leads its report, and no failure names another rule, but for one that
 * `alike` says reads the same observations another way.
 */
function expectLeads(
  report: Report,
  rule: string,
  alike: (result: PropertyResult) => boolean = () => false,
): void {
  const failed = causeFirst(report.results);
  expect(failed.map((r) => `${r.name}: ${r.rule}`)[0], formatReport(report)).toMatch(
    new RegExp(`: ${rule}$`),
  );
  const others = failed.filter((r) => r.rule !== rule && !alike(r));
  expect(others.map((r) => `${r.name}: ${r.rule}`)).toEqual([]);
}

/**
 * Two overlapping archives answered alike, each with its event: a no-op's event and a lost
 * update whose dates coincide are the same observations, which the concurrent group names a
 * change made twice.
 */
const changedTwice = (result: PropertyResult) =>
  result.name === 'concurrent.races' &&
  result.rule === 'linearizable' &&
  /each emitted employee\.archived .* \(a lost update\)$/.test(result.race?.summary ?? '');

it('passes a default run against the router whose events are right, without waiting out the timeout', async () => {
  const report = await run(await recordedTarget(), { runs: 100, eventsTimeoutMs: 10_000 });
  expect(report.ok, formatReport(report)).toBe(true);
  const events = report.results.find((r) => r.name === 'events.delivery');
  expect(events?.status).toBe('passed');
  expect(report.events).toMatchObject({ lost: 0, unexpected: 0, duplicated: 0 });
  // A correct target's only calls that did not say whether they happened: those the kit hung up on.
  expect(report.events?.recovered).toBeLessThanOrEqual(report.hungUp);
  expect(report.events?.delivered).toBe(report.events?.changes);
  expect(report.events?.changes).toBeGreaterThan(300);
  expect(report.events?.waitedMs).toBeLessThan(1000);
  expect(report.coverage.rules['event-order']).toBeGreaterThan(0);
  expect(formatReport(report)).toContain(`events: ${report.events?.changes} changes`);
});

const FAULTS: readonly (readonly [
  RecorderFault,
  string,
  Partial<ContractOptions>,
  (result: PropertyResult) => boolean,
])[] = [
  ['event-for-a-no-op', 'no-event-without-change', {}, changedTwice],
  ['events-swapped', 'event-order', { runs: 50 }, () => false],
  // Only the concurrent group: a 503 one at a time breaks no-server-error, before any event.
  ['commits-then-fails', 'events-delivered', { only: ['concurrent'], runs: 50 }, () => false],
];

it.each(FAULTS)(
  'fails a target whose events are wrong (%s): rule %s leads',
  async (fault, rule, options, alike) => {
    expectLeads(await run(await recordedTarget(fault), options), rule, alike);
  },
);

it('catches the lost update whose answers agree by its events, and draws them', async () => {
  const report = await run(await recordedTarget('lost-update-dates-coincide'), {
    only: ['concurrent'],
    runs: 100,
  });
  expectLeads(report, 'linearizable');
  const race = report.results.find((r) => r.name === 'concurrent.races')?.race;
  expect(race?.summary).toMatch(
    /each emitted shift.deleted .* the shift was deleted twice \(a lost update\)$/,
  );
  const marks = race?.calls.flatMap((c) => c.events ?? []).map((e) => e.mark);
  expect(marks).toContain('unexpected');
  const page = toHtmlReport(report);
  expect(page).toContain('class="event wrong"');
  expect(page).toContain('data-mark="unexpected"');
});
