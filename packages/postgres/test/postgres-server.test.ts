import { describeStoreConformance } from '@workforce-kit/core/testing';
import pg from 'pg';
import { inject } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { emptyTables } from './support.js';

const databaseUrl = inject('databaseUrl');

for (const namedStatements of [false, true]) {
  describeStoreConformance(
    `postgres (PostgreSQL 15 server${namedStatements ? ', named statements' : ''})`,
    async () => {
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
      const store = await createPostgresStore({ client: pool, ownsClient: true, namedStatements });
      await emptyTables(pool);
      return store;
    },
  );
}
