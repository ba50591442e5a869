// The concurrent group hangs up on some of its branch calls after sending them, before the answer
// (issue 41, item 3): such a call is indeterminate, and the case's suffix and events show whether
// it happened. Against the reference router in process with its events recorded, a run passes
// with hang-ups made. Against the same router, its writes' outcomes known 5 ms late, that drops
// an event when the client that asked for the change is gone (a hang-up half-applies: the change
// made, its event never sent), the run fails, and only events-delivered: a change without its
// event.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect, it } from 'vitest';
import {
  checkApiContract,
  createEventRecorder,
  type EventRecorder,
  formatReport,
  type Report,
} from '../src/index.js';
import { recordedTarget } from './support/event-targets.js';
import { after } from './support/mutants.js';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

const run = (
  target: { handler: (req: IncomingMessage, res: ServerResponse) => unknown; reset: () => void },
  events: EventRecorder,
): Promise<Report> =>
  checkApiContract({
    target,
    seed: demoSeedJson,
    auth: AUTH,
    events,
    only: ['concurrent'],
    rngSeed: 53,
    runs: 100,
    shrinkTimeLimitMs: 1000,
    eventsTimeoutMs: 500,
  });

it('passes a router whose events are right, with hang-ups made', async () => {
  const { target, events } = await recordedTarget();
  const report = await run(target, events as EventRecorder);
  expect(report.ok, formatReport(report)).toBe(true);
  expect(report.hungUp).toBeGreaterThan(0);
  expect(report.events).toMatchObject({ lost: 0, unexpected: 0, duplicated: 0 });
  expect(formatReport(report)).toMatch(/^the kit hung up on \d+ calls of the concurrent group/m);
});

it('fails a router whose change half-applies on a hang-up (no event): events-delivered only', async () => {
  const events = createEventRecorder();
  // Whether the client that sent each request is gone (it hung up), by request id.
  const gone = new Map<string, () => boolean>();
  const late = () => new Promise<void>((resolve) => setTimeout(resolve, 5));
  const router = await routerTarget(
    {
      // Each write made at once, its outcome known 5 ms later: a hang-up comes before the event.
      store: (store) => ({
        ...store,
        employees: {
          ...store.employees,
          write: after(late, (...a) => store.employees.write(...a)),
        },
        shifts: { ...store.shifts, write: after(late, (...a) => store.shifts.write(...a)) },
      }),
    },
    undefined,
    {
      // The bug: an event is dropped when the client that asked for the change is gone.
      onEvent: (event) => {
        if (gone.get(event.requestId)?.() !== true) events.record(event);
      },
    },
  );
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['x-request-id'];
    if (typeof id === 'string') {
      // Gone once its answer's connection closed before the answer was written.
      gone.set(id, () => res.closed && !res.writableFinished);
    }
    return router.handler(req, res);
  };
  const report = await run({ handler, reset: () => router.reset() }, events);
  const failed = report.results.filter((r) => r.status === 'failed').map((r) => r.rule);
  expect(new Set(failed), formatReport(report)).toEqual(new Set(['events-delivered']));
  expect(report.hungUp).toBeGreaterThan(0);
});
