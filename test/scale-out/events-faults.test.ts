// The contract kit under --faults (issue 41, "How it must be shown"): two reference-server
// processes on one PostgreSQL server behind a round-robin balancer, their webhooks through the
// one outbox to the kit's receiver, and each process killed (SIGKILL) and restarted during the
// concurrent group's run, one after the other. Calls the balancer could not take to a process are
// indeterminate and counted as availability; no rule is broken and no event is lost, doubled or
// invented: a change a killed process made is delivered by the other's relay once its claim's
// lease (2 s here) runs out, and a record a killed process's call named starts its next case from
// any state (the database may commit that call's statement after the case ended).
import { checkApiContract, formatReport } from '@workforce-kit/contract-testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_SEED_FILE, type KitRig, startKitRig } from './events-deployment.js';

let rig: KitRig | undefined;

beforeAll(async () => {
  rig = await startKitRig(
    // A killed process's claimed deliveries come back to the other within 2 s.
    { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_LEASE_MS: '2000' },
  );
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

/** The rig beforeAll started. */
function started(): KitRig {
  if (rig === undefined) throw new Error('the deployment did not start');
  return rig;
}

/** Resolves once the balancer has forwarded `more` requests beyond what it had. */
async function forwardedMore(more: number): Promise<void> {
  const total = () => rig?.deployment.forwarded.reduce((a, b) => a + b, 0) ?? 0;
  const target = total() + more;
  while (total() < target) await new Promise((resolve) => setImmediate(resolve));
}

it('passes a --faults run with each process killed and restarted during it', async () => {
  let done = false;
  const kills: number[] = [];
  // Each process in turn: killed once the run is under way, restarted at once.
  const breaking = (async () => {
    for (const i of [0, 1]) {
      await forwardedMore(150);
      if (done) return;
      await started().deployment.kill(i);
      kills.push(i);
      await started().deployment.restart(i);
    }
  })();
  const report = await checkApiContract({
    target: started().deployment.url,
    seed: DEMO_SEED_FILE,
    auth: started().auth,
    events: started().receiver,
    only: ['concurrent'],
    faults: true,
    rngSeed: 41,
    runs: 200,
    eventsTimeoutMs: 15_000,
  }).finally(() => {
    done = true;
  });
  await breaking;
  expect(kills).toEqual([0, 1]);
  expect(report.ok, formatReport(report)).toBe(true);
  expect(report.availability?.unanswered).toBeGreaterThan(0);
  expect(report.events).toMatchObject({ lost: 0, unexpected: 0, duplicated: 0, refused: 0 });
  expect(report.events?.delivered).toBe(report.events?.changes);
  console.info(formatReport(report, { lines: false }).split('\n').slice(-5).join('\n'));
}, 180_000);
