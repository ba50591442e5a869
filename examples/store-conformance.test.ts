import { PGlite } from '@electric-sql/pglite';
import { describeStoreConformance } from '@workforce-kit/core/testing';
import { createPostgresStore } from '@workforce-kit/postgres';

// A new, empty store for each test; the suite closes it after the test.
describeStoreConformance('PostgreSQL on PGlite', async () =>
  createPostgresStore({ client: await PGlite.create(), ownsClient: true }),
);
