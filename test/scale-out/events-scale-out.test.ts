// The contract kit with its events, against two reference-server processes on one PostgreSQL
// server behind a round-robin balancer, their webhooks sent to the kit's receiver through the one
// outbox (either process's relay may deliver any change's event). A default run passes: every
// change's event comes once, signed, its record the answer's, in order, whichever process made
// the change and whichever delivered it; no false alarm; the run does not wait out the timeout.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { WebhookReceiver } from '@workforce-kit/contract-testing';
import {
  checkApiContract,
  formatReport,
  startWebhookReceiver,
} from '@workforce-kit/contract-testing';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type EventsDeployment, startEventsDeployment } from './events-deployment.js';

const DEMO_SEED_FILE = fileURLToPath(
  new URL('../../packages/server/seed/demo-seed.json', import.meta.url),
);
const authSecret = randomBytes(32).toString('hex');
const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
let postgres: PostgresServer | undefined;
let receiver: WebhookReceiver | undefined;
let deployment: EventsDeployment | undefined;

beforeAll(async () => {
  postgres = await startPostgresServer();
  receiver = await startWebhookReceiver({ secret: webhookSecret });
  deployment = await startEventsDeployment({
    databaseUrl: await postgres.createDatabase(),
    seedFile: DEMO_SEED_FILE,
    authSecret,
    webhookUrl: `${receiver.url}/hooks/workforce`,
    webhookSecret,
  });
}, 120_000);

afterAll(async () => {
  await deployment?.close();
  await receiver?.close();
  await postgres?.destroy();
});

it('passes a default run with events checked against two processes sharing one outbox', async () => {
  const report = await checkApiContract({
    target: deployment?.url ?? '',
    seed: DEMO_SEED_FILE,
    auth: { hs256Secret: authSecret, issuer: 'https://id.example.com/', audience: 'workforce-api' },
    events: receiver as WebhookReceiver,
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
  expect(deployment?.forwarded.every((count) => count > 1000)).toBe(true);
});
