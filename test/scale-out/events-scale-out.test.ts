// The contract kit with its events, against two reference-server processes on one PostgreSQL
// server behind a round-robin balancer, their webhooks sent to the kit's receiver through the one
// outbox (either process's relay may deliver any change's event). A default run passes: every
// change's event comes once, signed, its record the answer's, in order, whichever process made
// the change and whichever delivered it; no false alarm; the run does not wait out the timeout.
import { checkApiContract, formatReport } from '@workforce-kit/contract-testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEMO_SEED_FILE, type KitRig, startKitRig } from './events-deployment.js';

let rig: KitRig | undefined;

beforeAll(async () => {
  rig = await startKitRig();
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

/** The rig beforeAll started. */
function started(): KitRig {
  if (rig === undefined) throw new Error('the deployment did not start');
  return rig;
}

it('passes a default run with events checked against two processes sharing one outbox', async () => {
  const report = await checkApiContract({
    target: started().deployment.url,
    seed: DEMO_SEED_FILE,
    auth: started().auth,
    events: started().receiver,
    rngSeed: 42,
  });
  expect(report.ok, formatReport(report)).toBe(true);
  const { events } = report;
  expect(events).toMatchObject({ lost: 0, unexpected: 0, duplicated: 0, refused: 0 });
  // A correct target's only calls that did not say whether they happened: those the kit hung up on.
  expect(events?.recovered).toBeLessThanOrEqual(report.hungUp);
  expect(events?.delivered).toBe(events?.changes);
  expect(events?.changes).toBeGreaterThan(50);
  expect(events?.waitedMs).toBeLessThan(1000);
  expect(report.coverage.rules['event-order']).toBeGreaterThan(0);
  // Both processes served the run.
  expect(started().deployment.forwarded.every((count) => count > 1000)).toBe(true);
});
