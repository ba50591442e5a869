// The command's exit codes and output when something is wrong: 2 for bad usage; 1 for a broken
// rule, with the failure's replay as curl commands and a JUnit report naming it; 1 with
// --min-coverage on a target that hides a declared status, and on a seed that leaves the
// concurrent group too few shifts to race (thin evidence). The broken deployments are the
// mutation suite's, served by this test on loopback ports as live targets (no reset between runs:
// the kit follows the state it changes).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report } from '@workforce-kit/contract-testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MUTANTS } from './support/mutants.js';
import { runKit } from './support/processes.js';
import {
  AUDIENCE,
  DEMO_SEED_FILE,
  demoSeedJson,
  ISSUER,
  routerTarget,
  SECRET,
} from './support/router-target.js';
import { seedWithShifts } from './support/seed-with-shifts.js';

const servers: Server[] = [];
let url: string;
let hidingUrl: string;
let historyUrl: string;
let folder: string;

/** Serves the mutant `name` (or, for undefined, the correct router) over `seed`; its base URL. */
async function serveMutant(
  name: string | undefined,
  seed: unknown = demoSeedJson,
): Promise<string> {
  const mutant = MUTANTS.find((m) => m.name === name);
  if (mutant === undefined && name !== undefined) throw new Error(`no mutant ${name}`);
  const server = createServer((await routerTarget(mutant?.hooks, seed)).handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'workforce-kit-contract-exit-'));
  url = await serveMutant('archive-twice-400');
  hidingUrl = await serveMutant('hides-payload-too-large');
  historyUrl = await serveMutant('first-delete-answers-not-deleted');
});

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await rm(folder, { recursive: true, force: true });
});

const auth = ['--hs256-secret', SECRET, '--issuer', ISSUER, '--audience', AUDIENCE];

it('exits 2 with the usage on bad usage', async () => {
  const cases = [
    ['--base-url', url, ...auth],
    ['--base-url', 'ftp://example.com', '--seed', DEMO_SEED_FILE, ...auth],
    ['--base-url', url, '--seed', DEMO_SEED_FILE],
    ['--base-url', url, '--seed', DEMO_SEED_FILE, ...auth, '--only', 'stateles'],
    ['--base-url', url, '--seed', DEMO_SEED_FILE, ...auth, '--runs', 'many'],
    ['--base-url', url, '--seed', DEMO_SEED_FILE, ...auth, '--shrink-time-limit', '-1'],
    ['--base-url', url, '--seed', join(folder, 'missing.json'), ...auth],
  ];
  // Side by side: all but the missing seed's exit before the command loads the engine.
  const runs = await Promise.all(cases.map((args) => runKit(args)));
  for (const [i, run] of runs.entries()) {
    expect(run.code, cases[i]?.join(' ')).toBe(2);
    expect(run.stderr).toContain('workforce-kit-contract:');
  }
});

it('exits 1 on a broken rule, printing the rule, the replay and the totals last', async () => {
  const report = join(folder, 'junit.xml');
  const run = await runKit([
    '--base-url',
    url,
    '--seed',
    DEMO_SEED_FILE,
    ...auth,
    '--only',
    'stateful',
    '--rng-seed',
    '7',
    '--report',
    report,
  ]);
  console.info(run.stdout);
  expect(run.code, run.stdout + run.stderr).toBe(1);
  const lines = run.stdout.trim().split('\n');
  expect(lines.at(-1)).toBe('0 passed, 1 failed');
  expect(lines[0]).toMatch(/^✘ stateful\.state-tables {2}broke /);
  expect(run.stdout).toContain('rule archive-archived');
  expect(run.stdout).toMatch(/curl -sS -i --path-as-is -X DELETE '.*\/labor\/v1\/employees\//);
  const xml = await readFile(report, 'utf8');
  expect(xml).toContain(
    '<testcase classname="workforce-kit-contract.stateful" name="stateful.state-tables"',
  );
  expect(xml).toContain('<failure message="archive-archived:');
}, 120_000);

it('exits 1 with --min-coverage on a target that hides a declared status, naming it', async () => {
  const report = join(folder, 'hiding.json');
  const run = await runKit([
    '--base-url',
    hidingUrl,
    '--seed',
    DEMO_SEED_FILE,
    ...auth,
    '--rng-seed',
    '7',
    '--min-coverage',
    '--report',
    report,
  ]);
  expect(run.code, run.stdout + run.stderr).toBe(1);
  const json = JSON.parse(await readFile(report, 'utf8')) as Report;
  const hidden = { operationId: 'unarchiveEmployee', status: '413' };
  // Declared, never seen, and no reason: the kit could have provoked it.
  expect(json.coverage.operations.unarchiveEmployee?.['413']).toBe(0);
  expect(json.coverage.unseen).toContainEqual(hidden);
  expect(json.minCoverage?.met).toBe(false);
  expect(json.minCoverage?.gaps).toContain('unarchiveEmployee never answered 413');
  expect(run.stdout).toContain('minimum coverage not met: unarchiveEmployee never answered 413');
  expect(run.stdout.trim().split('\n').at(-1)).toMatch(/, minimum coverage not met$/);
}, 120_000);

it('exits 1 with --min-coverage on a seed that leaves too few shifts to race, saying so', async () => {
  // Two shifts on a live target: each can be deleted once in the whole run.
  const seedFile = join(folder, 'two-shifts.json');
  const seed = seedWithShifts(demoSeedJson, 2);
  await writeFile(seedFile, JSON.stringify(seed));
  const target = await serveMutant(undefined, seed);
  const run = await runKit([
    ...['--base-url', target, '--seed', seedFile, ...auth],
    ...['--only', 'concurrent', '--rng-seed', '3', '--min-coverage'],
  ]);
  expect(run.code, run.stdout + run.stderr).toBe(1);
  expect(run.stdout).toMatch(/^✔ concurrent\.races /m);
  const warning =
    /concurrent\.races raced shift deletes (0 times|once|2 times): the seed has 2 shifts that are not deleted; a seed with more makes this check stronger/;
  expect(run.stdout).toMatch(new RegExp(`\\nthin evidence .*\\n  ${warning.source}\\n`));
  expect(run.stdout).toMatch(new RegExp(`minimum coverage not met: .*${warning.source}`));
  expect(run.stdout.trim().split('\n').at(-1)).toBe('1 passed, 0 failed, minimum coverage not met');
}, 120_000);

it('ends a property whose fault depends on history at the shrinking time limit, with its report', async () => {
  // The first delete of each shift answers deleted: false; later ones are right, so shrinking
  // meets mostly passing runs (issue 26: it went on for minutes). A limit of 0 s ends it at the
  // first failing case.
  const report = join(folder, 'history.json');
  const run = await runKit([
    '--base-url',
    historyUrl,
    '--seed',
    DEMO_SEED_FILE,
    ...auth,
    '--only',
    'stateful',
    '--rng-seed',
    '42',
    '--shrink-time-limit',
    '0',
    '--report',
    report,
  ]);
  expect(run.code, run.stdout + run.stderr).toBe(1);
  expect(run.stdout.trim().split('\n').at(-1)).toBe('0 passed, 1 failed');
  expect(run.stdout).toContain('rule delete-shift');
  expect(run.stdout).toMatch(/shrunk \(0 steps, stopped at the time limit\) to: \[/);
  const json = JSON.parse(await readFile(report, 'utf8')) as Report;
  expect(json.shrinkTimeLimitMs).toBe(0);
  const [result] = json.results;
  expect(result?.shrinkTimeLimitReached).toBe(true);
  expect(typeof result?.reproduced).toBe('boolean');
  expect(result?.replay?.length).toBeGreaterThan(0);
}, 120_000);
