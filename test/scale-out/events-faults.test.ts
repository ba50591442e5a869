// The contract kit under --faults (issue 41, "How it must be shown"): two reference-server
// processes on one PostgreSQL server behind a round-robin balancer, their webhooks through the
// one outbox to the kit's receiver, broken during the concurrent group's run in two ways, each in
// a deployment of its own (a run needs a freshly seeded target):
// - processes killed (SIGKILL) and restarted, process 0 twice and process 1 once;
// - the database black-holed by a TCP proxy until each process has answered 503, then every
//   connection to it reset, twice.
// Calls the balancer could not take to a process, and 503s, are indeterminate and counted as
// availability; no rule is broken and no event is lost, doubled or invented. A change a killed
// process made is delivered by the other's relay once its claim's lease (2 s here) runs out, and a
// record an indeterminate call named starts its next case from any state (the database may commit
// that call's statement after the case ended).
import { checkApiContract, formatReport, type Report } from '@workforce-kit/contract-testing';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { DEMO_SEED_FILE, type KitRig, startKitRig } from './events-deployment.js';

let rig: KitRig | undefined;

afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** A killed process's claimed deliveries come back to the other within 2 s. */
const ENV = { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_LEASE_MS: '2000' };

/** Resolves once `reached()` holds, looking again on each turn of the event loop. */
async function until(reached: () => boolean): Promise<void> {
  while (!reached()) await new Promise((resolve) => setImmediate(resolve));
}

/** The deliveries the outbox has not made yet, and why, for a failure's message. */
async function undelivered(databaseUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT o.request_id, o.type, d.state, d.attempts, d.next_attempt_at - now() AS due_in,
              d.claimed_by, d.last_error, d.delivered_at - o.recorded_at AS took,
              now() - d.delivered_at AS delivered_ago
         FROM outbox_deliveries d JOIN outbox o ON o.position = d.event_position
        WHERE d.state <> 'delivered' OR d.attempts > 1
           OR d.delivered_at - o.recorded_at > interval '5 seconds'`,
    );
    return `deliveries not made, retried or late: ${JSON.stringify(rows, null, 1)}`;
  } finally {
    await client.end();
  }
}

/** Requests the balancer has forwarded so far. */
const forwarded = (started: KitRig) => started.deployment.forwarded.reduce((a, b) => a + b, 0);

/**
 * The concurrent group's --faults run against `started`, while `breakIt` breaks it (told when the
 * run has ended, so that it stops), and what it holds of every --faults run.
 */
async function runWhileBroken(
  started: KitRig,
  breakIt: (ended: () => boolean) => Promise<void>,
): Promise<Report> {
  let done = false;
  const breaking = breakIt(() => done);
  const report = await checkApiContract({
    target: started.deployment.url,
    seed: DEMO_SEED_FILE,
    auth: started.auth,
    events: started.receiver,
    only: ['concurrent'],
    faults: true,
    rngSeed: 41,
    runs: 200,
    eventsTimeoutMs: 15_000,
  }).finally(() => {
    done = true;
  });
  await breaking;
  expect(report.ok, `${formatReport(report)}\n${await undelivered(started.databaseUrl)}`).toBe(
    true,
  );
  expect(report.events).toMatchObject({ lost: 0, unexpected: 0, duplicated: 0, refused: 0 });
  expect(report.events?.delivered).toBe(report.events?.changes);
  console.info(formatReport(report, { lines: false }).split('\n').slice(-5).join('\n'));
  return report;
}

it('passes a --faults run with the processes killed and restarted, one of them twice', async () => {
  rig = await startKitRig(ENV);
  const started = rig;
  const kills: number[] = [];
  const report = await runWhileBroken(started, async (ended) => {
    for (const i of [0, 1, 0]) {
      const next = forwarded(started) + 150;
      await until(() => ended() || forwarded(started) >= next);
      if (ended()) return;
      await started.deployment.kill(i);
      kills.push(i);
      await started.deployment.restart(i);
    }
  });
  expect(kills).toEqual([0, 1, 0]);
  expect(report.availability?.unanswered).toBeGreaterThan(0);
}, 240_000);

it('passes a --faults run with the database black-holed, then reset, twice', async () => {
  // A query stuck in the black hole fails after a second (the server's query timeout is its
  // request timeout less a second), and the request is answered 503 at 2 s.
  rig = await startKitRig({ ...ENV, REQUEST_TIMEOUT_MS: '2000' }, { databaseProxy: true });
  const started = rig;
  const proxy = started.databaseProxy;
  if (proxy === undefined) throw new Error('the rig has no database proxy');
  let holes = 0;
  const connectedBefore = proxy.connections;
  const report = await runWhileBroken(started, async (ended) => {
    for (let i = 0; i < 2; i++) {
      const next = forwarded(started) + 150;
      await until(() => ended() || forwarded(started) >= next);
      if (ended()) return;
      const refusedBy = (i: number) => started.deployment.answered(503, i);
      const before = [refusedBy(0), refusedBy(1)];
      proxy.blackHole();
      // Held until each process has answered 503 for it (or the run ended meanwhile).
      await until(() => ended() || before.every((count, i) => refusedBy(i) > count));
      proxy.resetAll();
      holes++;
    }
  });
  expect(holes).toBe(2);
  // The processes connected again after each reset.
  expect(proxy.connections).toBeGreaterThan(connectedBefore);
  expect(started.deployment.answered(503, 0)).toBeGreaterThanOrEqual(2);
  expect(started.deployment.answered(503, 1)).toBeGreaterThanOrEqual(2);
  expect(report.availability?.serviceUnavailable).toBeGreaterThan(0);
}, 240_000);
