// The contract kit under --faults (issue 41, "How it must be shown"): two reference-server
// processes on one PostgreSQL server behind a round-robin balancer, their webhooks through the
// one outbox to the kit's receiver, broken during the concurrent group's run in two ways, each in
// a deployment of its own (a run needs a freshly seeded target):
// - processes killed (SIGKILL) and restarted, process 0 twice and process 1 once;
// - the database black-holed by a TCP proxy until each process has answered a request of the
//   test's own 503, then every connection to it reset, twice.
// Calls the balancer could not take to a process, and 503s, are indeterminate and counted as
// availability; no rule is broken and no event is lost, doubled or invented. A change a killed
// process made is delivered by the other's relay once its claim's lease (2 s here) runs out, and a
// record an indeterminate call named starts its next case from any state (the database may commit
// that call's statement after the case ended).
import { readFileSync } from 'node:fs';
import { checkApiContract, formatReport, type Report } from '@workforce-kit/contract-testing';
import pg from 'pg';
import { afterEach, expect, it } from 'vitest';
import { signJwt } from '../support/sign-jwt.js';
import { DEMO_SEED_FILE, type KitRig, startKitRig } from './events-deployment.js';

/** The demo seed's first restaurant, which the black-hole test's own requests read. */
const DEMO_RESTAURANT = (() => {
  const seed = JSON.parse(readFileSync(DEMO_SEED_FILE, 'utf8')) as {
    restaurants: { guid: string }[];
  };
  const guid = seed.restaurants[0]?.guid;
  if (guid === undefined) throw new Error(`no restaurant in ${DEMO_SEED_FILE}`);
  return guid;
})();

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
  // The hole ends on the test's own requests, one to each process: the kit's may all be waiting
  // meanwhile for the events of the changes before it, which cannot come through the hole.
  const now = Math.floor(Date.now() / 1000);
  const { hs256Secret, issuer, audience } = started.auth;
  const claims = { scope: 'restaurants:read', restaurants: [DEMO_RESTAURANT], iat: now };
  const token = signJwt({ ...claims, iss: issuer, aud: audience, exp: now + 900 }, hs256Secret);
  const probe = async (i: number) => {
    const server = started.deployment.servers[i];
    const res = await fetch(`${server?.url}/restaurants/v1/restaurants/${DEMO_RESTAURANT}`, {
      headers: {
        authorization: `Bearer ${token}`,
        'platform-restaurant-external-id': DEMO_RESTAURANT,
      },
    });
    await res.text();
    return res.status;
  };
  const probed: number[] = [];
  const connectedBefore = proxy.connections;
  await runWhileBroken(started, async (ended) => {
    for (let hole = 0; hole < 2; hole++) {
      const next = forwarded(started) + 150;
      await until(() => ended() || forwarded(started) >= next);
      if (ended()) return;
      proxy.blackHole();
      // Held until each process has answered a request 503 with its database cut off.
      probed.push(...(await Promise.all([probe(0), probe(1)])));
      proxy.resetAll();
    }
  });
  expect(probed).toEqual([503, 503, 503, 503]);
  // The processes connected again after each reset.
  expect(proxy.connections).toBeGreaterThan(connectedBefore);
}, 240_000);
