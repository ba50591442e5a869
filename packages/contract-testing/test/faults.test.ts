// A run of the kit against a target broken on purpose: the reference router in process, behind a
// wrapper that hangs up on every 7th change request, once before the router sees it (not made)
// and once after the router made it and before its answer (made, answered to no one), its events
// to the kit's recorder. Without --faults the first call without an answer fails the run
// (target-available) on the run it met it in. With it, every such call is indeterminate, counted
// apart as availability, and the run passes: its changes' events are held to them (a hang-up
// after the change recovered by its event), nothing lost, nothing doubled. Safety is still
// judged: over a store that answers 503 after committing some changes, before their events, a 503
// one at a time is indeterminate, and the concurrent group's cases still find the events lost;
// over the shift lost update whose answers agree, the same hang-ups fail linearizable.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { checkApiContract, formatReport, type Report } from '../src/index.js';
import { type EventTarget, type RecorderFault, recordedTarget } from './support/event-targets.js';
import { AUTH, demoSeedJson } from './support/router-target.js';

/** Every how many change requests the wrapper hangs up. */
const EVERY = 7;

/** The target's handler, hanging up on every {@link EVERY}th change request, before and after in turn. */
function hangingUp(
  handler: (req: IncomingMessage, res: ServerResponse) => unknown,
): (req: IncomingMessage, res: ServerResponse) => unknown {
  let changes = 0;
  return (req, res) => {
    if (req.method !== 'PUT' && req.method !== 'DELETE') return handler(req, res);
    changes++;
    if (changes % EVERY !== 0) return handler(req, res);
    if ((changes / EVERY) % 2 === 1) {
      req.socket.destroy();
      return undefined;
    }
    // Made, then hung up on: the answer is never written.
    res.writeHead = () => res;
    res.write = () => true;
    res.end = () => {
      req.socket.destroy();
      return res;
    };
    return handler(req, res);
  };
}

let made: EventTarget | undefined;
afterEach(async () => {
  await made?.close();
  made = undefined;
});

async function run(fault: RecorderFault | undefined, faults: boolean, only?: ['concurrent']) {
  made = await recordedTarget(fault);
  return checkApiContract({
    target: { handler: hangingUp(made.target.handler), reset: made.target.reset },
    seed: demoSeedJson,
    auth: AUTH,
    events: made.events,
    rngSeed: 47,
    runs: only === undefined ? 25 : 100,
    shrinkTimeLimitMs: 500,
    eventsTimeoutMs: 500,
    faults,
    ...(only === undefined ? {} : { only }),
  });
}

const failedRules = (report: Report) =>
  report.results.filter((r) => r.status === 'failed').map((r) => r.rule);

it('without --faults, fails target-available on the run that met the hang-up', async () => {
  const report = await run(undefined, false);
  expect(report.ok).toBe(false);
  expect(new Set(failedRules(report)), formatReport(report)).toEqual(new Set(['target-available']));
  const first = report.results.find((r) => r.status === 'failed');
  expect(first?.message).toMatch(/socket hang up|ECONNRESET/);
  expect(first?.shrinks).toBe(0);
  expect(report.availability).toBeUndefined();
});

it('with --faults, counts the hang-ups as availability and judges only safety: passes', async () => {
  const report = await run(undefined, true);
  expect(report.ok, formatReport(report)).toBe(true);
  expect(report.availability?.unanswered).toBeGreaterThan(0);
  expect(report.availability?.runsNotJudged).toBeGreaterThan(0);
  expect(report.events).toMatchObject({ lost: 0, unexpected: 0, duplicated: 0 });
  expect(report.events?.recovered).toBeGreaterThan(0);
  expect(report.events?.delivered).toBe(report.events?.changes);
  expect(formatReport(report)).toMatch(
    /^availability \(--faults, counted apart, not judged\): \d+ calls got no answer/m,
  );
});

it('with --faults, reads a 503 one at a time as indeterminate, and still fails a change without its event', async () => {
  const report = await run('commits-then-fails', true);
  expect(new Set(failedRules(report)), formatReport(report)).toEqual(new Set(['events-delivered']));
  expect(report.availability?.serviceUnavailable).toBeGreaterThan(0);
});

it('with --faults, still fails the lost update whose answers agree, by its events', async () => {
  const report = await run('lost-update-dates-coincide', true, ['concurrent']);
  expect(failedRules(report), formatReport(report)).toEqual(['linearizable']);
  expect(report.availability?.unanswered).toBeGreaterThan(0);
});
