import { mkdirSync } from 'node:fs';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import { lockDirectory } from './directory-lock.js';

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
 * `@electric-sql/pglite` is an optional peer dependency: it is loaded by this function only.
 *
 * @param dataDir - the directory; created if missing
 * @param options - PGlite's options (not `dataDir`)
 * @returns the open database; pass it to `createPostgresStore` with `ownsClient: true` so that the
 *   store's `close()` closes it and releases the lock
 * @throws DirectoryLockedError when another running process holds the directory
 * @throws PGliteOpenError when PostgreSQL cannot start on the directory's data
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
): Promise<PGlite> {
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDirectory(dataDir);
  let db: PGlite;
  try {
    const { PGlite } = await import('@electric-sql/pglite');
    db = await PGlite.create(dataDir, options);
  } catch (error) {
    lock.release();
    throw new PGliteOpenError(dataDir, error);
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
