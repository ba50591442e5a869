import type {
  ConditionalWrite,
  Employee,
  Guid,
  RecordedEvent,
  RecordIdentifier,
  SeedOutcome,
  SeedRecords,
  Shift,
  WorkforceStore,
} from '@workforce-kit/core';
import { migrate } from './migrations.js';
import { DEFAULT_MAX_BATCH_SIZE, RecordWrites } from './record-writes.js';
import type { SqlClient } from './sql-client.js';
import { StatementRunner } from './statement-runner.js';
import { json, type RecordOfKind } from './store-records.js';
import { RECORD_CACHE_SIZE, RecordTable, RestaurantTable } from './store-tables.js';

export { DEFAULT_MAX_BATCH_SIZE, RECORD_CACHE_SIZE };

/** Options of {@link createPostgresStore}. */
export interface PostgresStoreOptions {
  /** The database: a `pg.Pool` (a PostgreSQL server) or a PGlite instance (embedded). */
  readonly client: SqlClient;
  /**
   * Whether `close()` ends the client too (`end()` on a pool, `close()` on PGlite). Leave it off
   * when the client is shared with other code.
   * @default false
   */
  readonly ownsClient?: boolean;
  /**
   * Called with errors the client reports outside of a query (a pool's idle connection lost when
   * the server restarts). The store listens for them, so that they do not end the process.
   * @default ignore them (each failing query is still reported as StorageUnavailable)
   */
  readonly onClientError?: (error: unknown) => void;
  /**
   * This store is the database's only writer: PGlite, which one process opens at a time
   * (`openPGlite`). Reads are then served from this process's memory where they can be exactly:
   * each restaurant found is read from the database once (restaurants change only by seeding,
   * which empties the cache), and the employees and shifts this store keeps (below) answer every
   * read. Leave it off with a PostgreSQL server that other processes or tools write: there the
   * restaurants are read from the database each time, and the employees and shifts kept answer
   * only the use cases' reads before a change (`ChangeRead` of `@workforce-kit/core`), which the
   * change's write confirms or the use case reads again.
   *
   * Either way the store keeps the most recently used employees and shifts
   * ({@link RECORD_CACHE_SIZE} of each kind) as it last read or wrote them, so that a change costs
   * one statement, not two; a write that loses a race keeps the record as the database then holds
   * it, and one whose outcome is not known drops it.
   * @default false
   */
  readonly soleWriter?: boolean;
  /**
   * Sends the store's statements as named prepared statements, which PostgreSQL parses and plans
   * once per connection rather than at each call: `{ name, text, values }`, which `pg`'s `Pool`
   * and `Client` take (PGlite does not: leave it off there).
   * @default false
   */
  readonly namedStatements?: boolean;
  /**
   * The most changes one write statement carries. Writes are committed in groups: while one is
   * in flight, the changes that arrive queue, and the next statement commits them all, each with
   * its own compare-and-set and its own outcome (see {@link createPostgresStore}).
   * @default DEFAULT_MAX_BATCH_SIZE (64)
   */
  readonly maxBatchSize?: number;
  /**
   * Called with the number of changes of each write statement the store sends (for a metric of
   * the batch sizes; the reference server's is `workforce_kit_store_batch_size`).
   * @default none
   */
  readonly onBatch?: (size: number) => void;
}

/** The ports of a table, as plain functions (a caller may spread them, as a store's wrapper does). */
function recordPorts<T extends RecordOfKind>(table: RecordTable<T>) {
  return {
    find: (restaurantGuid: Guid, id: RecordIdentifier) => table.find(restaurantGuid, id),
    write: (change: ConditionalWrite<T>) => table.write(change),
  };
}

/**
 * Creates the store for PostgreSQL over a client: a `pg.Pool` for a PostgreSQL server, shared by
 * any number of processes, or a PGlite instance for an embedded database. Applies the schema
 * migrations first (under an advisory lock, each once). Reads and writes name the restaurant;
 * any client failure (a lost connection, a stopped server) is `StorageUnavailable`, and the next
 * query simply tries again.
 *
 * Writes are committed in groups: one write statement is in flight at a time, and the changes that
 * arrive meanwhile go together in the next (up to `maxBatchSize`), each with its own
 * compare-and-set against the version it read, its own result (the stored record, a version
 * conflict, a refused change of identity) and its events, in the outbox in commit order. A change
 * that finds no write in flight is sent at once; a write resolves once its statement committed. A
 * batch the database refuses as a whole is sent again change by change, so that only the change
 * at fault fails. Reads of restaurants, and of employees and shifts by GUID, are grouped the same
 * way, each sent after it was asked for. The employees and shifts the store last read or wrote
 * are kept in process (see `soleWriter`): a change of one of them is one statement.
 *
 * @param options - the client, whether the store owns it, and how it reads and writes
 * @returns the store, once migrated; rejects if the migrations cannot be applied
 * @example
 * ```ts
 * import pg from 'pg';
 *
 * const store = await createPostgresStore({
 *   client: new pg.Pool({ connectionString }),
 *   ownsClient: true,
 *   namedStatements: true,
 *   onBatch: (size) => batchSizes.observe(size), // a prom-client Histogram of yours
 * });
 * await store.seed(seed);
 * ```
 */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<WorkforceStore> {
  const { client } = options;
  const events = client as Partial<{
    on(event: 'error', listener: (error: unknown) => void): unknown;
  }>;
  if (typeof events.on === 'function') events.on('error', options.onClientError ?? (() => {}));
  await migrate(client);

  const statements = new StatementRunner(client, options.namedStatements ?? false);
  const soleWriter = options.soleWriter ?? false;
  const writes = new RecordWrites(statements, options);
  const keeping = soleWriter ? 'sole-writer' : 'shared-database';
  const employees = new RecordTable<Employee>('employees', statements, writes, keeping);
  const shifts = new RecordTable<Shift>('shifts', statements, writes, keeping);
  const restaurants = new RestaurantTable(statements, soleWriter);
  const eventsOf = (rows: { payload: unknown }[]) =>
    rows.map((row) => json<RecordedEvent>(row.payload));

  return {
    employees: recordPorts(employees),
    shifts: recordPorts(shifts),
    restaurants: { findByGuid: (guid) => restaurants.findByGuid(guid) },
    events: {
      list: (restaurantGuid?: Guid) =>
        (restaurantGuid === undefined
          ? statements.query<{ payload: unknown }>(
              'events.list',
              'SELECT payload FROM outbox ORDER BY position',
            )
          : statements.query<{ payload: unknown }>(
              'events.list',
              'SELECT payload FROM outbox WHERE restaurant_guid = $1 ORDER BY position',
              [restaurantGuid],
            )
        ).map(eventsOf),
    },
    seed: (seed: SeedRecords) =>
      statements
        .query<{ seeded: boolean }>('seed', 'SELECT workforce_kit_seed($1::jsonb) AS seeded', [
          JSON.stringify({
            restaurants: seed.restaurants,
            employees: seed.employees,
            shifts: seed.shifts,
          }),
        ])
        .map(([row]): SeedOutcome => {
          restaurants.clear();
          employees.clear();
          shifts.clear();
          return { seeded: row?.seeded === true };
        }),
    ping: () => statements.query('ping', 'SELECT 1').map(() => undefined),
    async close() {
      if (statements.closed) return;
      statements.close();
      if (!options.ownsClient) return;
      const owned = client as Partial<{ end(): Promise<void>; close(): Promise<void> }>;
      await (owned.end?.() ?? owned.close?.());
    },
  };
}
