// The rows of the HTTP bench: the hand-written peers (bench/server.ts) and workforce-kit's
// reference server run as users run it (its bin, packages/server/dist/cli.js, with its defaults:
// security headers, metrics, request ids, rate limits, LOG_LEVEL info), tokens verified as
// AUTH_MODE=jwt does with an HS256 secret, issuer and audience; its rate limits raised so that the
// load is not refused. Each start gets its own log, PGlite directory or PostgreSQL database. The
// fetch adapter has two rows: on Hono (@hono/node-server: the reference server's
// HTTP_FRAMEWORK=hono) beside bare Hono, and on Bun.serve (bun/bun-server.ts, run by Bun, with the
// reference server's API options) beside bare Bun.serve. The NestJS module (the reference server's
// HTTP_FRAMEWORK=nestjs, on Nest's Express platform) is beside bare NestJS, a controller on the
// same platform. `pg-plain` (peers/pg-plain.ts) is the same work by hand on the PostgreSQL server
// of the `wk-postgres` row, each start in a database of its own.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type PostgresServer, startPostgresServer } from '@workforce-kit/postgres/testing';
import pg from 'pg';
import { BENCH_REFERENCE_SETTINGS } from './fixtures.js';
import { type Launched, launch } from './processes.js';

export type RowId =
  | 'bare'
  | 'node-bare'
  | 'node-floor'
  | 'node-plain'
  | 'express-floor'
  | 'fastify-bare'
  | 'fastify-reference'
  | 'hono-bare'
  | 'nest-bare'
  | 'bun-bare'
  | 'openapi-backend'
  | 'express-openapi-validator'
  | 'wk-express'
  | 'wk-express-no-metrics'
  | 'wk-fastify'
  | 'wk-node'
  | 'wk-hono'
  | 'wk-nestjs'
  | 'wk-bun'
  | 'wk-pglite'
  | 'pg-plain'
  | 'wk-postgres';

export interface Row {
  readonly id: RowId;
  readonly label: string;
  /** A peer of bench/server.ts, or the reference server with these settings. */
  readonly peer?: string;
  /** The peer serves from a database of its own on the bench's PostgreSQL server (DATABASE_URL). */
  readonly database?: true;
  /** A row of bun/bun-server.ts, run by Bun. */
  readonly bun?: 'bun-bare' | 'wk-bun';
  readonly settings?: Readonly<Record<string, string>>;
}

const memory = (framework: string) => ({ HTTP_FRAMEWORK: framework, STORE: 'memory' });

/** The rows, in the order of the first pass (the second runs them backwards). */
export function rows(stores: readonly string[]): Row[] {
  return [
    { id: 'bare', label: 'Express bare (the baseline)', peer: 'bare' },
    { id: 'node-bare', label: 'node:http bare', peer: 'node-bare' },
    {
      id: 'node-floor',
      label: "node:http with only the defaults' work (headers, metrics, log line)",
      peer: 'node-floor',
    },
    {
      id: 'node-plain',
      label:
        "node:http with the API's work written plainly, and the defaults' (the floor of its targets)",
      peer: 'node-plain',
    },
    { id: 'fastify-bare', label: 'Fastify bare', peer: 'fastify-bare' },
    {
      id: 'fastify-reference',
      label: 'Fastify by hand (schemas, fast-json-stringify, jose)',
      peer: 'fastify-reference',
    },
    { id: 'wk-fastify', label: 'workforce-kit on Fastify', settings: memory('fastify') },
    { id: 'wk-node', label: 'workforce-kit on node:http', settings: memory('node') },
    { id: 'hono-bare', label: 'Hono bare (@hono/node-server)', peer: 'hono-bare' },
    {
      id: 'wk-hono',
      label: 'workforce-kit on Hono (@hono/node-server, the fetch adapter)',
      settings: memory('hono'),
    },
    { id: 'bun-bare', label: 'Bun.serve bare (Bun 1.4.5)', bun: 'bun-bare' },
    {
      id: 'wk-bun',
      label: "workforce-kit on Bun.serve (the fetch adapter, the reference server's API options)",
      bun: 'wk-bun',
      settings: { STORE: 'memory' },
    },
    {
      id: 'openapi-backend',
      label: 'openapi-backend on node:http (ajv, jose)',
      peer: 'openapi-backend',
    },
    {
      id: 'express-floor',
      label: "Express with only the defaults' work, in one middleware",
      peer: 'express-floor',
    },
    { id: 'wk-express', label: 'workforce-kit on Express', settings: memory('express') },
    {
      id: 'nest-bare',
      label: "NestJS bare (a controller, Nest's Express platform)",
      peer: 'nest-bare',
    },
    {
      id: 'wk-nestjs',
      label: "workforce-kit's NestJS module (Nest's Express platform)",
      settings: memory('nestjs'),
    },
    {
      id: 'wk-express-no-metrics',
      label: 'workforce-kit on Express, METRICS=false',
      settings: { ...memory('express'), METRICS: 'false' },
    },
    ...(stores.includes('pglite')
      ? [
          {
            id: 'wk-pglite',
            label: 'workforce-kit on PGlite (the default: Express, STORE=pglite)',
            settings: {},
          } as const,
        ]
      : []),
    ...(stores.includes('postgres')
      ? [
          {
            id: 'pg-plain',
            label:
              'node:http and pg by hand on PostgreSQL 15: a change one conditional UPDATE (the floor)',
            peer: 'pg-plain',
            database: true,
          } as const,
          {
            id: 'wk-postgres',
            label: 'workforce-kit on PostgreSQL 15 (Express, STORE=postgres)',
            settings: { STORE: 'postgres' },
          } as const,
        ]
      : []),
    {
      id: 'express-openapi-validator',
      label: 'Express + express-openapi-validator + jose',
      peer: 'express-openapi-validator',
    },
  ];
}

const here = fileURLToPath(new URL('.', import.meta.url));
/** The binary bench's `bun` package ships (its postinstall links the platform's). */
const bun = join(
  dirname(createRequire(import.meta.url).resolve('bun/package.json')),
  'bin',
  'bun.exe',
);
const cli = fileURLToPath(new URL('../packages/server/dist/cli.js', import.meta.url));

/** What the servers inherit: enough to run Node, none of the bench's own settings. */
function baseEnv(): NodeJS.ProcessEnv {
  const { PATH, HOME, TMPDIR } = process.env;
  return { PATH, HOME, ...(TMPDIR === undefined ? {} : { TMPDIR }), NODE_ENV: 'production' };
}

/** A row's server, and the database it serves from when it is a PostgreSQL server's. */
export interface RowServer extends Launched {
  /** Its database's URL, with `pg_stat_statements` on (STORE=postgres, or `pg-plain`'s own). */
  readonly databaseUrl?: string;
}

/** Creates a database on `server` with pg_stat_statements in it; its URL. */
async function countedDatabase(server: PostgresServer): Promise<string> {
  const url = await server.createDatabase();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION pg_stat_statements');
  } finally {
    await client.end();
  }
  return url;
}

/** Starts the rows' servers, each in `work` (logs, PGlite directories, the seed file). */
export class RowStarter {
  #database: Promise<PostgresServer> | undefined;
  #starts = 0;

  constructor(
    private readonly work: string,
    private readonly seedFile: string,
  ) {}

  /**
   * Starts a row's server; `nodeArgs` go to Node before the script (`--cpu-prof`, say), and a
   * reference server row runs `referenceCli` (another checkout's build, say) when given.
   */
  async start(row: Row, nodeArgs: readonly string[] = [], referenceCli = cli): Promise<RowServer> {
    const n = ++this.#starts;
    const logFile = join(this.work, `${n}-${row.id}.log`);
    if (row.peer !== undefined) {
      const databaseUrl = row.database ? await this.#countedDatabase() : undefined;
      const server = await launch({
        args: [...nodeArgs, '--import', 'tsx', 'server.ts', row.peer],
        cwd: here,
        env: { ...baseEnv(), ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) },
        logFile,
        urlIn: (log) => {
          const port = /\{"port":(\d+)\}/.exec(log)?.[1];
          return port === undefined ? undefined : `http://127.0.0.1:${port}`;
        },
      });
      return databaseUrl === undefined ? server : { ...server, databaseUrl };
    }
    const settings = { ...row.settings };
    let databaseUrl: string | undefined;
    if (row.bun !== undefined) {
      return launch({
        command: bun,
        args: ['--conditions=@workforce-kit/source', join('bun', 'bun-server.ts'), row.bun],
        cwd: here,
        env: { ...baseEnv(), DO_NOT_TRACK: '1', ...this.referenceEnv(), ...settings },
        logFile,
        urlIn: (log) => {
          const port = /\{"port":(\d+)\}/.exec(log)?.[1];
          return port === undefined ? undefined : `http://127.0.0.1:${port}`;
        },
      });
    }
    if (settings.STORE === 'postgres') {
      databaseUrl = await this.#countedDatabase();
      settings.DATABASE_URL = databaseUrl;
    } else if (settings.STORE === undefined) {
      settings.PGLITE_DIR = join(this.work, `${n}-pglite`);
    }
    const server = await launch({
      args: [...nodeArgs, referenceCli],
      cwd: this.work,
      env: { ...baseEnv(), ...this.referenceEnv(), ...settings },
      logFile,
      urlIn: (log) => /listening on (http:\/\/\S+)/.exec(log)?.[1],
    });
    await ready(server);
    return databaseUrl === undefined ? server : { ...server, databaseUrl };
  }

  /**
   * A new database on the bench's one PostgreSQL server (started at the first call), its
   * statements counted per request (pg_stat_statements, loaded at the server's start).
   */
  async #countedDatabase(): Promise<string> {
    this.#database ??= startPostgresServer({
      settings: { shared_preload_libraries: 'pg_stat_statements' },
    });
    return countedDatabase(await this.#database);
  }

  /** The reference server's settings in the bench, on a port of its own, over the bench's seed. */
  private referenceEnv(): Record<string, string> {
    return { HOST: '127.0.0.1', PORT: '0', SEED_FILE: this.seedFile, ...BENCH_REFERENCE_SETTINGS };
  }

  /** Stops the PostgreSQL server, if one was started (or is starting). */
  async close(): Promise<void> {
    const database = this.#database;
    this.#database = undefined;
    await (await database?.catch(() => undefined))?.destroy();
  }
}

/** Waits until `/readyz` answers 200: the store is open (bounded by the launch's deadline). */
async function ready(server: Launched): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ok = await fetch(`${server.url}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`${server.url}/readyz never answered 200`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
