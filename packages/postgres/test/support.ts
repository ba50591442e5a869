import type { SqlClient } from '../src/index.js';

/** Empties every table of the store (the schema stays). */
export async function emptyTables(client: SqlClient): Promise<void> {
  await client.query(
    'TRUNCATE outbox_deliveries, outbox_destinations, outbox, employees, shifts, restaurants RESTART IDENTITY',
  );
}
