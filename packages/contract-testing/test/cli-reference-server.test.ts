// The kit's command as a user runs it, against the reference server as a user starts it
// (`workforce-kit` with jwt auth from an HS256 secret, an issuer and an audience, and a seed
// file), on each web framework (Express, Fastify) and each store (memory, PGlite, a PostgreSQL
// server). Default settings, a fixed RNG seed; the server's per-second rate limit is raised so that the run is not paced by it (the
// kit waits 429s out; `--rate` keeps a run within the default limits instead).
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKit, type ServerProcess, startReferenceServer } from './support/processes.js';
import { DEMO_SEED_FILE } from './support/router-target.js';

const ISSUER = 'https://id.example.com/';
const AUDIENCE = 'workforce-api';

let folder: string;
let postgres: PostgresServer | undefined;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'workforce-kit-contract-cli-'));
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
const HTTP_FRAMEWORKS = ['express', 'fastify', 'node'] as const;
const targets = HTTP_FRAMEWORKS.flatMap((framework) =>
  stores.map(([store, storeEnv]) => [framework, store, storeEnv] as const),
);

describe.each(targets)(
  'the command against the reference server on %s over %s',
  (framework, store, storeEnv) => {
    const secret = randomBytes(32).toString('hex');
    let server: ServerProcess;

    beforeAll(async () => {
      server = await startReferenceServer({
        ...(await storeEnv()),
        HTTP_FRAMEWORK: framework,
        SEED_FILE: DEMO_SEED_FILE,
        AUTH_MODE: 'jwt',
        AUTH_HS256_SECRET: secret,
        AUTH_ISSUER: ISSUER,
        AUTH_AUDIENCE: AUDIENCE,
        RATE_LIMIT_PER_SECOND: '100000',
        RATE_LIMIT_PER_15_MIN: '1000000',
      });
      expect(server.output()).toContain(`Framework      ${framework} (HTTP_FRAMEWORK)`);
    }, 120_000);

    afterAll(async () => {
      await server?.stop();
    });

    it('finds every property kept, exit 0, and reports the requests it sent', async () => {
      const report = join(folder, `${framework}-${store}.json`);
      const args = [
        '--base-url',
        server.url,
        '--seed',
        DEMO_SEED_FILE,
        '--hs256-secret',
        secret,
        '--issuer',
        ISSUER,
        '--audience',
        AUDIENCE,
        '--rng-seed',
        '42',
      ];
      const run = await runKit([...args, '--report', report]);
      const lines = run.stdout.trim().split('\n');
      expect(lines.at(-1), run.stdout + run.stderr).toMatch(/^\d+ passed, 0 failed$/);
      expect(run.code, run.stdout).toBe(0);
      const json = JSON.parse(await readFile(report, 'utf8')) as {
        requests: number;
        passed: number;
        results: { name: string; status: string }[];
      };
      // One line per property, then the totals, then the last line.
      expect(lines.filter((line) => /^[✔✘-] /.test(line))).toHaveLength(json.results.length);
      expect(json.passed).toBe(json.results.length);
      expect(lines.at(-2)).toContain(`${json.requests} requests sent`);
      console.info(`${framework} over ${store}: ${json.requests} requests, ${run.ms} ms`);
    }, 120_000);
  },
);
