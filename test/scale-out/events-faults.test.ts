// The contract kit under --faults (issue 41, "How it must be shown"): two reference-server
// processes on one PostgreSQL server behind a round-robin balancer, their webhooks through the
// one outbox to the kit's receiver, the database reached through a TCP proxy, and the deployment
// broken five times during one run of the concurrent group, in turn:
// - a process killed (SIGKILL) and restarted: process 0 twice, process 1 once;
// - the database black-holed by the proxy until each process has answered 503, then every
//   connection to it reset: twice.
// Calls the balancer could not take to a process, and 503s, are indeterminate and counted as
// availability; no rule is broken and no event is lost, doubled or invented. A change a killed
// process made is delivered by the other's relay once its claim's lease (2 s here) runs out, a
// change whose answer was lost in the black hole is recovered by its event, and a record an
// indeterminate call named starts its next case from any state (the database may commit that
// call's statement after the case ended). One run for both kinds of fault: a run needs a freshly
// seeded target, and a deployment of its own costs as much again.
import { checkApiContract, formatReport } from '@workforce-kit/contract-testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_SEED_FILE, type KitRig, startKitRig } from './events-deployment.js';

let rig: KitRig | undefined;

beforeAll(async () => {
  // A killed process's claimed deliveries come back to the other within 2 s. A query stuck in
  // the black hole fails after a second (the server's query timeout is its request timeout less
  // a second), and its request is answered 503 at 2 s.
  rig = await startKitRig(
    { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_LEASE_MS: '2000', REQUEST_TIMEOUT_MS: '2000' },
    { databaseProxy: true },
  );
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

/** Resolves once `reached()` holds, looking again on each turn of the event loop. */
async function until(reached: () => boolean): Promise<void> {
  while (!reached()) await new Promise((resolve) => setImmediate(resolve));
}

type Fault = { readonly kill: number } | 'black hole';

it('passes a --faults run through kills and restarts and a black-holed database', async () => {
  if (rig?.databaseProxy === undefined) throw new Error('the deployment did not start');
  const { deployment, databaseProxy: proxy } = rig;
  const forwarded = () => deployment.forwarded.reduce((a, b) => a + b, 0);
  const refusedBy = (i: number) => deployment.answered(503, i);
  const schedule: readonly Fault[] = [
    { kill: 0 },
    'black hole',
    { kill: 1 },
    'black hole',
    { kill: 0 },
  ];
  const done: Fault[] = [];
  let ended = false;
  let connectedBefore = 0;
  // Each fault once 150 more requests went through, so that the run is under way around it.
  const breaking = (async () => {
    for (const fault of schedule) {
      const next = forwarded() + 150;
      await until(() => ended || forwarded() >= next);
      if (ended) return;
      if (fault === 'black hole') {
        const before = [refusedBy(0), refusedBy(1)];
        connectedBefore = proxy.connections;
        proxy.blackHole();
        // Held until each process has answered 503 for it (or the run ended meanwhile).
        await until(() => ended || before.every((count, i) => refusedBy(i) > count));
        proxy.resetAll();
      } else {
        await deployment.kill(fault.kill);
        await deployment.restart(fault.kill);
      }
      done.push(fault);
    }
  })();
  const report = await checkApiContract({
    target: deployment.url,
    seed: DEMO_SEED_FILE,
    auth: rig.auth,
    events: rig.receiver,
    only: ['concurrent'],
    faults: true,
    rngSeed: 41,
    runs: 200,
    eventsTimeoutMs: 15_000,
  }).finally(() => {
    ended = true;
  });
  await breaking;
  expect(done).toEqual(schedule);
  expect(report.ok, formatReport(report)).toBe(true);
  expect(report.events).toMatchObject({ lost: 0, unexpected: 0, duplicated: 0, refused: 0 });
  expect(report.events?.delivered).toBe(report.events?.changes);
  expect(report.availability?.unanswered).toBeGreaterThan(0);
  expect(report.availability?.serviceUnavailable).toBeGreaterThan(0);
  // Each process answered 503 in each black hole, and connected again after its reset.
  expect(refusedBy(0)).toBeGreaterThanOrEqual(2);
  expect(refusedBy(1)).toBeGreaterThanOrEqual(2);
  expect(proxy.connections).toBeGreaterThan(connectedBefore);
  console.info(formatReport(report, { lines: false }).split('\n').slice(-5).join('\n'));
}, 240_000);
