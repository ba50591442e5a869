import { describeStoreConformance } from '@workforce-kit/core/testing';
import Database from 'better-sqlite3';
import { createSchema } from '../src/schema.js';
import { createSqliteStore, type StoreBug } from '../src/sqlite-store.js';

/** A store over a new in-memory database of the app's tables; the suite closes it after each test. */
function freshStore(bugs: readonly StoreBug[] = []) {
  const db = new Database(':memory:');
  createSchema(db);
  return createSqliteStore(db, { bugs });
}

// The one line a store needs: the suite, over a new, empty store for each test.
describeStoreConformance("SQLite (better-sqlite3), the app's own tables", () => freshStore());

// With SQLITE_STORE_BUGS (a comma-separated list of STORE_BUGS), the suite once more with each
// bug switched on: what test/store-bugs.test.ts runs in a child process, expecting it to fail.
// A fixed seed, so that the shuffled races interleave the same way at each run.
for (const bug of process.env.SQLITE_STORE_BUGS?.split(',').filter(Boolean) ?? []) {
  describeStoreConformance(`SQLite with the bug ${bug}`, () => freshStore([bug as StoreBug]), {
    seed: Number(process.env.SQLITE_CONFORMANCE_SEED ?? 1),
  });
}
