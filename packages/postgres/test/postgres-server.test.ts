import { describeStoreConformance } from '@workforce-kit/core/testing';
import pg from 'pg';
import { inject } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { emptyTables } from './support.js';

const databaseUrl = inject('databaseUrl');

describeStoreConformance('postgres (PostgreSQL 15 server)', async () => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const store = await createPostgresStore({ client: pool, ownsClient: true });
  await emptyTables(pool);
  return store;
});
