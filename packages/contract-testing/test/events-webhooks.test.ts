// The kit's webhook receiver given a deployment's webhooks, sent as the reference server's relay
// sends them (in process: each committed change's events with the record stored, one record's in
// order, signed by the server's own deliverer, retried until a 2xx), against the reference router
// over the memory store: right, a run passes with each event's record held to the answer and its
// body to the spec, and no false alarm; wrong one way each, only that way's rule leads the report.
import { expect, it } from 'vitest';
import { causeFirst } from '../src/failure-order.js';
import { formatReport } from '../src/index.js';
import { eventRuns, type WebhookFault, webhookTarget } from './support/event-targets.js';

const run = eventRuns(43);

it('passes a run against the router whose webhooks are right: records, bodies and signatures held', async () => {
  const report = await run(await webhookTarget(), { runs: 50, eventsTimeoutMs: 10_000 });
  expect(report.ok, formatReport(report)).toBe(true);
  expect(report.events).toMatchObject({ lost: 0, unexpected: 0, duplicated: 0, refused: 0 });
  expect(report.events?.delivered).toBe(report.events?.changes);
  expect(report.events?.waitedMs).toBeLessThan(1000);
  expect(report.events?.recovered).toBeLessThanOrEqual(report.hungUp);
  const { rules } = report.coverage;
  for (const rule of ['webhook-signature', 'documented-event'] as const) {
    expect(rules[rule], rule).toBe(report.events?.delivered);
  }
  // Every event's record held to its answer (a late one's again), but a recovered one's: its call
  // had no answer.
  const recovered = report.events?.recovered ?? 0;
  expect(rules['event-record']).toBeGreaterThanOrEqual((report.events?.delivered ?? 0) - recovered);
});

// Each fault, the rule that leads, and the rules the same fault may also break: an event doubled
// for a call the kit hung up on (or that timed out) breaks "zero events or one" rather than
// "exactly one", which is the same bug seen on an indeterminate call, not a false alarm.
const FAULTS: readonly (readonly [WebhookFault, string, readonly string[]])[] = [
  ['delivered-twice-under-two-ids', 'event-per-change', ['indeterminate-event']],
  ['dropped-after-2xx', 'events-delivered', []],
  ['record-not-the-answer', 'event-record', []],
  ['bad-signature', 'webhook-signature', []],
];

it.each(FAULTS)(
  'fails a target whose webhooks are wrong (%s): rule %s leads',
  async (fault, rule, alsoBroken) => {
    const report = await run(await webhookTarget(fault));
    const failed = causeFirst(report.results);
    expect(failed[0]?.rule, formatReport(report)).toBe(rule);
    const others = failed
      .map((r) => r.rule)
      .filter((r) => r !== rule && (r === undefined || !alsoBroken.includes(r)));
    expect(others).toEqual([]);
    if (fault === 'dropped-after-2xx') {
      // Nothing the kit saw was wrong: the end of the run counts the event lost.
      expect(failed.map((r) => r.name)).toEqual(['events.delivery']);
      expect(report.events).toMatchObject({ lost: 1, duplicated: 0, unexpected: 0 });
    }
    if (fault === 'bad-signature') expect(report.events?.refused).toBeGreaterThan(0);
  },
);
