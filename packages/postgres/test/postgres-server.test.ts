import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describeStoreConformance } from '@workforce-kit/core/testing';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createPostgresStore } from '../src/index.js';
import { emptyTables, POSTGRES_SERVERS } from './support.js';

describe('the PostgreSQL servers the store is tested on', () => {
  it('are the installed one (pg_config) and PostgreSQL 18, each as SHOW server_version reports', async () => {
    const installed = (await promisify(execFile)('pg_config', ['--version'])).stdout;
    const versions = await Promise.all(
      POSTGRES_SERVERS.map(async ({ url }) => {
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          return (await client.query('SHOW server_version')).rows[0].server_version as string;
        } finally {
          await client.end();
        }
      }),
    );
    const major = (version: string) => Number(/^\D*(\d+)\./.exec(version)?.[1]);
    expect(versions.map(major)).toEqual([major(installed), 18]);
  });
});

for (const server of POSTGRES_SERVERS) {
  for (const namedStatements of [false, true]) {
    describeStoreConformance(
      `postgres (${server.name}${namedStatements ? ', named statements' : ''})`,
      async () => {
        const pool = new pg.Pool({ connectionString: server.url, max: 10 });
        const store = await createPostgresStore({
          client: pool,
          ownsClient: true,
          namedStatements,
        });
        await emptyTables(pool);
        return store;
      },
    );
  }
}
