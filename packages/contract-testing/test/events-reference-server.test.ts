// The command against the reference server as a user runs it with webhooks: PGlite, WEBHOOK_URLS
// pointing at the kit's receiver (--webhooks-listen) and WEBHOOK_SECRET the kit verifies with
// (--webhook-secret). A default run passes with every change's webhook held to its call (its
// record, its body, its signature, its order), no false alarm, and ends without waiting out the
// events timeout; its reports say what came.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Report } from '../src/index.js';
import { freePort } from './support/free-port.js';
import {
  kitServerEnv,
  runKit,
  type ServerProcess,
  startReferenceServer,
  targetArgs,
} from './support/processes.js';
import { DEMO_SEED_FILE } from './support/router-target.js';

const secret = randomBytes(32).toString('hex');
const webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
let folder: string;
let server: ServerProcess | undefined;
let port: number;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'workforce-kit-events-'));
  port = await freePort();
  server = await startReferenceServer({
    ...kitServerEnv(secret),
    STORE: 'pglite',
    PGLITE_DIR: join(folder, 'pglite'),
    SEED_FILE: DEMO_SEED_FILE,
    WEBHOOK_URLS: `http://127.0.0.1:${port}/hooks/workforce`,
    WEBHOOK_SECRET: webhookSecret,
  });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await rm(folder, { recursive: true, force: true });
});

it('passes a default run with the webhooks of the reference server on PGlite checked', async () => {
  const json = join(folder, 'run.json');
  const html = join(folder, 'run.html');
  const run = await runKit([
    ...targetArgs(server?.url ?? '', DEMO_SEED_FILE, secret),
    '--rng-seed',
    '42',
    '--webhooks-listen',
    `127.0.0.1:${port}`,
    '--webhook-secret',
    webhookSecret,
    '--report',
    json,
    '--report',
    html,
  ]);
  const lines = run.stdout.trim().split('\n');
  expect(lines.at(-1), run.stdout + run.stderr + (server?.output() ?? '')).toMatch(
    /^\d+ passed, 0 failed$/,
  );
  expect(run.code).toBe(0);
  expect(lines.find((line) => line.startsWith('✔ events.delivery'))).toBeDefined();
  const report = JSON.parse(await readFile(json, 'utf8')) as Report;
  const { events } = report;
  expect(events).toMatchObject({ lost: 0, unexpected: 0, duplicated: 0, refused: 0 });
  // A correct target's only calls that did not say whether they happened: those the kit hung up on.
  expect(events?.recovered).toBeLessThanOrEqual(report.hungUp);
  expect(events?.delivered).toBe(events?.changes);
  expect(events?.changes).toBeGreaterThan(50);
  // The end of the run waits for none: every event came within the runs.
  expect(events?.waitedMs).toBeLessThan(1000);
  for (const rule of ['webhook-signature', 'documented-event'] as const) {
    expect(report.coverage.rules[rule], rule).toBe(events?.delivered);
  }
  // Every event's record held to its answer (a late one's again), but a recovered one's: its call
  // had no answer.
  expect(report.coverage.rules['event-record']).toBeGreaterThanOrEqual(
    (events?.delivered ?? 0) - (events?.recovered ?? 0),
  );
  expect(await readFile(html, 'utf8')).toContain(`events: ${events?.changes} changes`);
  console.info(`the reference server on PGlite, webhooks checked: ${run.ms} ms, ${lines.at(-2)}`);
});
