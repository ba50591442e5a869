import { PGlite } from '@electric-sql/pglite';
import { describeStoreConformance } from '@workforce-kit/core/testing';
import { afterAll, beforeAll } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { emptyTables } from './support.js';

// One embedded database for the suite (starting one takes a second); emptied before each test.
let db: PGlite;
beforeAll(async () => {
  db = await PGlite.create();
});
afterAll(async () => {
  await db.close();
});

describeStoreConformance('postgres (PGlite)', async () => {
  const store = await createPostgresStore({ client: db });
  await emptyTables(db);
  return store;
});
