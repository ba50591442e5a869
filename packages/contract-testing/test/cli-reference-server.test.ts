// The kit's command as a user runs it, against the reference server as a user starts it
// (`workforce-kit` with jwt auth from an HS256 secret, an issuer and an audience, and a seed
// file), on each web framework (Express, Fastify, node:http) and each store (memory, PGlite, a
// PostgreSQL server): three servers, each framework and each store in one of them (a framework's
// answers do not depend on the store, nor a store's on the framework: the HTTP suites cover every
// framework, the conformance suite every store). Default settings, a fixed RNG seed and
// --min-coverage: every declared status seen or unreachable, every rule checked, no thin evidence,
// in the text, JSON and JUnit reports. The seed is the demo seed with 60 employees and 300 shifts:
// a live target is not reset, and the run's deletes use its shifts up (with the demo seed's 3, the
// stateful and concurrent groups delete none, and the run warns of it). The server's rate limits
// are raised so that the run is not paced by them (the kit waits 429s out; `--rate` keeps a run
// within the default limits instead). Then, on one of them, a user's next run, after unarchiving
// an employee with curl: the server is not as the seed says, and the command stops with exit 3,
// naming her.
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report } from '@workforce-kit/contract-testing';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenSource } from '../src/token-source.js';
import {
  kitServerEnv,
  runKit,
  type ServerProcess,
  startReferenceServer,
  targetArgs,
} from './support/processes.js';
import { AUDIENCE, demoSeedJson, ISSUER } from './support/router-target.js';
import { seedWithShifts } from './support/seed-with-shifts.js';

let folder: string;
let seedFile: string;
let postgres: PostgresServer | undefined;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'workforce-kit-contract-cli-'));
  seedFile = join(folder, 'seed.json');
  // The demo seed's own employees (Maria among them) beside 60 copies, and 300 shifts.
  const large = seedWithShifts(demoSeedJson, 300, 60);
  const employees = [...(demoSeedJson.employees as unknown[]), ...(large.employees as unknown[])];
  await writeFile(seedFile, JSON.stringify({ ...large, employees }));
});

afterAll(async () => {
  await postgres?.destroy();
  await rm(folder, { recursive: true, force: true });
});

const stores: readonly [string, () => Promise<Record<string, string>>][] = [
  ['memory', async () => ({ STORE: 'memory' })],
  [
    'pglite',
    async () => ({
      STORE: 'pglite',
      PGLITE_DIR: join(folder, `pglite-${randomBytes(4).toString('hex')}`),
    }),
  ],
  [
    'postgres',
    async () => {
      postgres ??= await startPostgresServer();
      return { STORE: 'postgres', DATABASE_URL: await postgres.createDatabase() };
    },
  ],
];

/** The reference server's HTTP_FRAMEWORK values (its config.ts; another package's source is out of this one's reach). */
const HTTP_FRAMEWORKS = ['express', 'fastify', 'node', 'nestjs'] as const;
/** Each framework with one store, each store with a framework at least. */
const targets = HTTP_FRAMEWORKS.map((framework, i) => {
  const entry = stores[i % stores.length];
  if (entry === undefined) throw new Error(`no store for ${framework}`);
  return [framework, entry[0], entry[1]] as const;
});

describe.each(targets)(
  'the command against the reference server on %s over %s',
  (framework, store, storeEnv) => {
    const secret = randomBytes(32).toString('hex');
    let server: ServerProcess;

    beforeAll(async () => {
      server = await startReferenceServer({
        ...(await storeEnv()),
        HTTP_FRAMEWORK: framework,
        SEED_FILE: seedFile,
        ...kitServerEnv(secret),
      });
      expect(server.output()).toContain(`Framework      ${framework} (HTTP_FRAMEWORK)`);
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
    });

    it('finds every property kept and the contract covered, exit 0, in every report', async () => {
      const report = join(folder, `${framework}-${store}.json`);
      const junit = join(folder, `${framework}-${store}.xml`);
      const args = [
        ...targetArgs(server.url, seedFile, secret),
        '--rng-seed',
        '42',
        '--min-coverage',
      ];
      const run = await runKit([...args, '--report', report, '--report', junit]);
      const lines = run.stdout.trim().split('\n');
      expect(lines.at(-1), run.stdout + run.stderr).toMatch(/^\d+ passed, 0 failed$/);
      expect(run.code, run.stdout).toBe(0);
      const json = JSON.parse(await readFile(report, 'utf8')) as Report;
      // One line per property, the coverage, the totals, then the last line.
      expect(lines.filter((line) => /^[✔✘-] /.test(line))).toHaveLength(json.results.length);
      expect(json.passed).toBe(json.results.length);
      expect(lines.at(-2)).toContain(`${json.requests} requests sent`);
      expect(run.stdout).toContain('minimum coverage met');
      expect(json.minCoverage).toEqual({ met: true, gaps: [] });
      // Every declared status seen, or listed with why the kit cannot provoke it (429, 500, 503
      // here: the rate limits are raised); every rule checked.
      const { coverage } = json;
      expect(Object.keys(coverage.operations)).toHaveLength(4);
      for (const [operationId, statuses] of Object.entries(coverage.operations)) {
        for (const [status, answers] of Object.entries(statuses)) {
          if (answers > 0) continue;
          expect(coverage.unseen).toContainEqual({
            operationId,
            status,
            reason: expect.any(String),
          });
        }
      }
      expect(new Set(coverage.unseen.map((u) => u.status))).toEqual(new Set(['429', '500', '503']));
      expect(Object.values(coverage.rules).every((checks) => checks > 0)).toBe(true);
      expect(coverage.thinEvidence).toEqual([]);
      expect(Object.keys(coverage.changes['concurrent.races'] ?? {})).toHaveLength(3);
      expect(run.stdout).toContain(
        `unarchiveEmployee  200: ${coverage.operations.unarchiveEmployee?.['200']}, `,
      );
      const xml = await readFile(junit, 'utf8');
      expect(xml).toContain(
        `<property name="coverage.rule.no-reveal" value="${coverage.rules['no-reveal']}"/>`,
      );
      expect(xml).toContain(
        `<property name="coverage.status.deleteShift.200" value="${coverage.operations.deleteShift?.['200']}"/>`,
      );
      expect(xml).toMatch(/<property name="coverage\.unseen\.getRestaurant\.503" value="storage/);
      expect(xml).toContain(
        '<testcase classname="workforce-kit-contract.coverage" name="coverage.minimum"></testcase>',
      );
      console.info(`${framework} over ${store}: ${json.requests} requests, ${run.ms} ms`);
    }, 120_000);

    // On one server: the next run of a user who unarchived an employee with curl first.
    if (framework !== 'express') return;
    it('stops a run against it after Maria was unarchived with curl, exit 3, naming her', async () => {
      const maria = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
      const tokens = createTokenSource(
        { hs256Secret: secret, issuer: ISSUER, audience: AUDIENCE },
        [],
      );
      const token = await tokens.token({ scopes: ['labor.employees:write'], restaurants: '*' });
      const unarchived = await fetch(`${server.url}/labor/v1/employees/${maria}/unarchive`, {
        method: 'PUT',
        headers: {
          Authorization: `Bearer ${token}`,
          'Platform-Restaurant-External-ID': 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b',
          'Content-Type': 'application/json',
        },
        body: '{}',
      });
      // 400 when the run before left her unarchived: the server is not as the seed says either way.
      expect([200, 400]).toContain(unarchived.status);
      const report = join(folder, 'not-seeded.json');
      const args = [...targetArgs(server.url, seedFile, secret), '--only', 'stateful'];
      const run = await runKit([...args, '--runs', '20', '--report', report]);
      expect(run.code, run.stdout + run.stderr).toBe(3);
      expect(run.stderr).toMatch(
        new RegExp(
          `^workforce-kit-contract: stopped, no contract violation: the target's employee ${maria} \\(PAYROLL:10042\\) is not archived as the seed says .*: was the target freshly seeded\\?\nThe kit follows the changes it makes from the seed's state: start the target afresh from .*seed\\.json, and run the kit once against it.\n$`,
        ),
      );
      expect(run.stdout).not.toContain('✘');
      await expect(readFile(report, 'utf8')).rejects.toThrow(/ENOENT/);
    }, 60_000);
  },
);
