import { inject } from 'vitest';
import type { SqlClient } from '../src/index.js';

/**
 * The PostgreSQL servers the global setup started, the installed one first, then PostgreSQL 18:
 * the store's suites that need a server loop over them (`for (const server of POSTGRES_SERVERS)`).
 */
export const POSTGRES_SERVERS = inject('postgresServers');

/** Empties every table of the store (the schema stays). */
export async function emptyTables(client: SqlClient): Promise<void> {
  await client.query(
    'TRUNCATE outbox_deliveries, outbox_destinations, outbox, employees, shifts, restaurants RESTART IDENTITY',
  );
}
