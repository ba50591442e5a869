import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import { LOCK_FILE_NAME, lockDirectory } from './directory-lock.js';

/**
 * PGlite's data could not be opened: PostgreSQL did not start on the directory (PGlite reports
 * little more than `Aborted()`). The directory is not locked any more when this is thrown.
 */
export class PGliteOpenError extends Error {
  override readonly name = 'PGliteOpenError';
  constructor(
    readonly directory: string,
    override readonly cause: unknown,
  ) {
    super(
      `PostgreSQL (PGlite) could not open the data in ${directory}: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}

/**
 * The PostgreSQL settings {@link openPGlite} starts PGlite with, beside PGlite's own start
 * parameters, unless the caller passes `startParams`. PostgreSQL's default `shared_buffers`
 * (128 MB) is sized for a server with many sessions; PGlite has one, and every page of it that
 * PostgreSQL touches stays in the process's memory (WebAssembly memory never shrinks). 16 MB holds
 * the kit's working set; reads beyond it come from the operating system's file cache.
 */
export const PGLITE_SETTINGS: Readonly<Record<string, string>> = { shared_buffers: '16MB' };

/** How {@link openPGlite} creates a new database. */
export interface PGliteCreation {
  /**
   * The PGlite data-directory tarball (`dumpDataDir('gzip')`) a new database starts from, or
   * `false` to run PostgreSQL's `initdb`. A tarball PGlite cannot start on (one of another
   * PostgreSQL version) is set aside for `initdb`.
   * @default the empty database built with this package (`pglite-template/`), when present
   */
  readonly template?: string | false;
}

/** The empty database this package's build makes (scripts/build-pglite-template.mjs). */
const BUILT_TEMPLATE = fileURLToPath(new URL('../pglite-template/pgdata.tar.gz', import.meta.url));

/** Present while {@link openPGlite} moves a database it created into place; gone once complete. */
const CREATING_MARKER = 'workforce-kit.creating';
/** Where a new database is made, inside the directory (so one rename each). */
const CREATING_DIR = 'workforce-kit.creating.d';

/**
 * Opens (or creates) a PGlite database in a directory, under {@link lockDirectory}'s lock: a
 * second process, or a second open in this process, is refused with a `DirectoryLockedError`
 * naming the holder, before anything touches the directory. `close()` of the returned instance
 * closes the database and then releases the lock; a process that ends without closing leaves a
 * stale lock, which the next open takes over at once (PostgreSQL then recovers the directory from
 * its write-ahead log, with every committed change).
 *
 * One process at a time, because each PGlite instance is a whole PostgreSQL engine in single-user
 * mode, with no lock of its own on the directory that another process would see: a second engine
 * on a directory in use replays and checkpoints it as if the first had crashed, then both write
 * it; the changes of one are lost, or the directory no longer opens (`Aborted()`: "could not
 * locate a valid checkpoint record"). To share one database among processes, use a PostgreSQL
 * server.
 *
 * A new database starts from the empty database this package is built with (a 4 MB tarball,
 * unpacked into the directory in well under a second), migrations applied, rather than from
 * PostgreSQL's `initdb` (several seconds), unless `creation.template` says otherwise; when PGlite
 * cannot start on the template, the database is made with `initdb` instead. `initdb` runs in a
 * short-lived child process, whose memory (a second engine and initdb's own, several hundred MB in
 * PGlite) goes back to the system when it exits. PGlite starts with {@link PGLITE_SETTINGS}
 * (`shared_buffers` of 16 MB) unless `options.startParams` is given.
 * A creation that is interrupted (the process killed) is started over by the next open; a
 * directory that holds other files but no database is refused rather than written into.
 *
 * `@electric-sql/pglite` is an optional peer dependency: it is loaded by this function only.
 *
 * @param dataDir - the directory; created if missing
 * @param options - PGlite's options (not `dataDir`)
 * @param creation - how a new database is created
 * @returns the open database; pass it to `createPostgresStore` with `ownsClient: true` so that the
 *   store's `close()` closes it and releases the lock
 * @throws DirectoryLockedError when another running process holds the directory
 * @throws PGliteOpenError when PostgreSQL cannot start on the directory's data, or the directory
 *   holds files that are not a database
 * @example
 * ```ts
 * const store = await createPostgresStore({ client: await openPGlite('.data/pglite'), ownsClient: true });
 * // ... later, at shutdown:
 * await store.close();
 * ```
 */
export async function openPGlite(
  dataDir: string,
  options: Omit<PGliteOptions, 'dataDir'> = {},
  creation: PGliteCreation = {},
): Promise<PGlite> {
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDirectory(dataDir);
  let db: PGlite;
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    const startParams = options.startParams ?? [
      ...PGlite.defaultStartParams,
      ...Object.entries(PGLITE_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ];
    const open = () => PGlite.create(dataDir, { ...options, startParams });
    // A database loaded from a tarball (`loadDataDir`) is created by PGlite itself.
    const created =
      options.loadDataDir === undefined
        ? await createDatabaseIfMissing(
            dataDir,
            creation.template ?? (existsSync(BUILT_TEMPLATE) ? BUILT_TEMPLATE : false),
          )
        : 'none';
    try {
      db = await open();
    } catch (error) {
      if (created !== 'template') throw error;
      // Not a database this PGlite starts on (another PostgreSQL version): made anew by initdb.
      removeDatabase(dataDir);
      await createDatabaseIfMissing(dataDir, false);
      db = await open();
    }
  } catch (error) {
    lock.release();
    throw error instanceof PGliteOpenError ? error : new PGliteOpenError(dataDir, error);
  }
  const close = db.close.bind(db);
  Object.defineProperty(db, 'close', {
    configurable: true,
    value: async () => {
      try {
        await close();
      } finally {
        lock.release();
      }
    },
  });
  return db;
}

const isOurs = (name: string) =>
  name.startsWith(LOCK_FILE_NAME) || name === CREATING_MARKER || name === CREATING_DIR;

/** Removes the database of a directory (not its lock). */
function removeDatabase(dataDir: string): void {
  for (const name of readdirSync(dataDir)) {
    if (!name.startsWith(LOCK_FILE_NAME))
      rmSync(join(dataDir, name), { recursive: true, force: true });
  }
}

/**
 * Creates the database of a directory that has none (no `PG_VERSION`) into a folder inside the
 * directory, from the template (unpacked) or by `initdb` (a tarball that does not unpack falls back
 * to it); then moves it into place, `PG_VERSION` last, under a marker that lets the next open
 * start an interrupted creation over. Says how the database was made, if it was.
 */
async function createDatabaseIfMissing(
  dataDir: string,
  template: string | false,
): Promise<'none' | 'template' | 'initdb'> {
  const dir = resolve(dataDir);
  if (existsSync(join(dir, 'PG_VERSION'))) return 'none';
  const marker = join(dir, CREATING_MARKER);
  const foreign = readdirSync(dir).filter((name) => !isOurs(name));
  if (foreign.length > 0 && !existsSync(marker)) {
    throw new PGliteOpenError(
      dataDir,
      new Error(
        `the directory holds files (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}) but no database (no PG_VERSION); give an empty or new directory`,
      ),
    );
  }
  // An interrupted creation (ours, by the marker): start it over.
  for (const name of foreign) rmSync(join(dir, name), { recursive: true, force: true });
  const creating = join(dir, CREATING_DIR);
  rmSync(creating, { recursive: true, force: true });
  mkdirSync(creating);
  let made: 'template' | 'initdb' = 'initdb';
  if (template !== false) {
    try {
      const problems = await unpackTemplate(template, creating);
      if (problems.length > 0) throw new Error(problems.join('; '));
      made = 'template';
    } catch {
      rmSync(creating, { recursive: true, force: true });
      mkdirSync(creating);
    }
  }
  if (made === 'initdb') await initdbInChildProcess(creating);
  writeFileSync(marker, '');
  const names = readdirSync(creating).filter((name) => name !== 'PG_VERSION');
  for (const name of [...names, 'PG_VERSION']) renameSync(join(creating, name), join(dir, name));
  rmSync(creating, { recursive: true, force: true });
  rmSync(marker);
  return made;
}

/**
 * Unpacks the template tarball into `directory` in a short-lived child Node process, and says what
 * went wrong, if anything. The child unpacks synchronously (node-tar's sync mode is quicker than
 * its streams; docs/performance.md has the figures), on the other core if there is one, while
 * this process's event loop stays free (the server answers `/healthz` meanwhile); its buffers go
 * back to the system when it exits (a worker thread's would stay in this process's allocator).
 * PGlite's tarball names its files from the root (`/PG_VERSION`): tar strips the `/` and says so
 * (TAR_ENTRY_INFO); any other warning (not an archive, a bad entry) is a problem.
 */
async function unpackTemplate(template: string, directory: string): Promise<string[]> {
  const program = `
    const [tar, template, directory] = process.argv.slice(1);
    const problems = [];
    try {
      require(tar).x({
        file: template,
        cwd: directory,
        sync: true,
        // PostgreSQL reads no file times: setting each one's would only add a call per file.
        noMtime: true,
        onwarn: (code, message) => {
          if (code !== 'TAR_ENTRY_INFO') problems.push(code + ': ' + String(message));
        },
      });
    } catch (error) {
      problems.push(String((error && error.message) || error));
    }
    process.stdout.write(JSON.stringify(problems));
  `;
  const tar = createRequire(import.meta.url).resolve('tar');
  const stdout = await runNode(
    ['--eval', program, tar, template, directory],
    'unpacking the template',
  );
  return JSON.parse(stdout) as string[];
}

/**
 * Runs PGlite's `initdb` in a child Node process into `directory`, which exits when it is done.
 */
async function initdbInChildProcess(directory: string): Promise<void> {
  const pglite = pathToFileURL(createRequire(import.meta.url).resolve('@electric-sql/pglite')).href;
  const program = `
    const [pglite, directory] = process.argv.slice(1);
    const { PGlite } = await import(pglite);
    const db = await PGlite.create(directory);
    await db.close();
  `;
  await runNode(
    ['--input-type=module', '--eval', program, pglite, directory],
    'creating the database',
  );
}

/**
 * Runs a short-lived child Node process with `args` and gives its standard output; fails with
 * `what` and its standard error (or how it ended) when it does not exit with 0.
 */
function runNode(args: readonly string[], what: string): Promise<string> {
  return new Promise((done, fail) => {
    execFile(process.execPath, args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      if (error === null) done(stdout);
      else fail(new Error(`${what} failed: ${stderr.trim() || error.message}`));
    });
  });
}
