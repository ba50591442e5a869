import { createHash } from 'node:crypto';
import {
  type ConditionalWrite,
  type Employee,
  type ExternalId,
  type Guid,
  type IdentityChangeRefused,
  identityChangeRefused,
  type MaybeAsync,
  type RecordedEvent,
  type RecordIdentifier,
  type Restaurant,
  type SeedOutcome,
  type SeedRecords,
  type Shift,
  type StorageError,
  type StoredRecord,
  storageUnavailable,
  type VersionConflict,
  versionConflict,
  type WorkforceStore,
} from '@workforce-kit/core';
import { LRUCache } from 'lru-cache';
import { err, errAsync, ok, type Result, ResultAsync } from 'neverthrow';
import { GroupCommit } from './group-commit.js';
import { migrate } from './migrations.js';
import { OUTBOX_CHANNEL } from './outbox-schema.js';
import type { NamedStatementClient, SqlClient } from './sql-client.js';

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
   * which empties the cache), and the most recently used employees and shifts
   * ({@link RECORD_CACHE_SIZE} of each kind) are kept as this store last read or wrote them, so
   * that a change costs one statement, not two. A write that fails drops its record from the
   * cache. Leave it off with a PostgreSQL server that other processes or tools write: there
   * every read goes to the database, never stale.
   * @default false
   */
  readonly soleWriter?: boolean;
  /**
   * Sends the store's statements as named prepared statements, which PostgreSQL parses and plans
   * once per connection rather than at each call: `{ name, text, values }`, which `pg`'s `Pool`
   * and `Client` take (PGlite does not: leave it off there). Measured on a PostgreSQL server, a
   * record's read by primary key from 50 callers at once: about 9,500 a second against 7,600.
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

/** The most changes one write statement carries, unless {@link PostgresStoreOptions.maxBatchSize} says otherwise. */
export const DEFAULT_MAX_BATCH_SIZE = 64;

/** The most reads (of restaurants, or of one kind of record by GUID) one statement carries. */
const MAX_READ_BATCH_SIZE = 256;

/** The restaurants of a batch of reads (each GUID once): a primary key lookup per GUID. */
const READ_RESTAURANTS = 'SELECT guid, data FROM restaurants WHERE guid = ANY($1::uuid[])';

/**
 * The records of a batch of reads by restaurant and GUID: a primary key lookup per read, each row
 * with the read's place in the batch (`i`, from 1).
 */
const readRecordsByGuid = (table: 'employees' | 'shifts') =>
  `SELECT read.i::integer AS i, record.data, record.version FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS read (restaurant_guid, guid, i) JOIN ${table} AS record ON record.restaurant_guid = read.restaurant_guid AND record.guid = read.guid`;

/** How many employees, and how many shifts, a {@link PostgresStoreOptions.soleWriter} store keeps. */
export const RECORD_CACHE_SIZE = 10_000;

/** The tables of the two record kinds the store writes. */
const TABLES = { employees: 'employees', shifts: 'shifts' } as const;

interface RecordRow {
  readonly data: Record<string, unknown>;
  readonly version: number;
}

/** A read of a record by its restaurant and GUID, queued for its batch. */
interface RecordKey {
  readonly restaurantGuid: Guid;
  readonly guid: Guid;
}

/** One change's row of `workforce_kit_write_records`: `arrival` is its place in the batch, from 1. */
interface WriteRow {
  readonly arrival: number;
  readonly written_data: Record<string, unknown> | null;
  readonly written_version: number | null;
  readonly record_exists: boolean;
  readonly stored_external_id: string | null;
}

/** A change queued for its batch, serialised: the store keeps none of the caller's objects. */
interface QueuedWrite {
  readonly table: 'employees' | 'shifts';
  /** The record: changes of one record go to separate batches. */
  readonly key: string;
  readonly restaurantGuid: Guid;
  readonly guid: Guid;
  readonly expectedVersion: number;
  readonly externalId: string | null;
  readonly deleted: boolean;
  /** The record but its version (which has its own column), as JSON. */
  readonly data: string;
  /** Its events, as JSON. */
  readonly events: string;
}

/** JSON columns arrive parsed from pg and PGlite; text from a client configured otherwise. */
function json(value: unknown): Record<string, unknown> {
  return (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
}

function withVersion<T>(row: RecordRow): T {
  return { ...json(row.data), version: row.version } as T;
}

function queuedWrite<T extends RecordOfKind>(
  table: 'employees' | 'shifts',
  change: ConditionalWrite<T>,
): QueuedWrite {
  const { record, expectedVersion } = change;
  const { version: _version, ...data } = record;
  return {
    table,
    key: `${table} ${record.restaurantGuid} ${record.guid}`,
    restaurantGuid: record.restaurantGuid,
    guid: record.guid,
    expectedVersion,
    externalId: record.externalId ?? null,
    deleted: record.deleted,
    data: JSON.stringify(data),
    events: JSON.stringify(change.events),
  };
}

/** A change as an element of `workforce_kit_write_records`' JSON array (its parts serialised once). */
function changeJson(queued: QueuedWrite): string {
  const text = JSON.stringify;
  return `{"kind":"${queued.table}","restaurant":${text(queued.restaurantGuid)},"guid":${text(queued.guid)},"expected":${queued.expectedVersion},"external_id":${text(queued.externalId)},"deleted":${queued.deleted},"data":${queued.data},"events":${queued.events}}`;
}

/** The order of records in a batch statement: by table, restaurant and GUID. */
function compareKeys(a: QueuedWrite | undefined, b: QueuedWrite | undefined): number {
  const [x, y] = [a?.key ?? '', b?.key ?? ''];
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * The conditional writes of a batch of records and their events: `workforce_kit_write_records`
 * (migration 008, which says what it does), one statement whose plan PostgreSQL keeps per
 * session, committing every change of the batch, each against the version it read.
 */
const WRITE_RECORDS =
  'SELECT arrival, written_data, written_version, record_exists, stored_external_id FROM workforce_kit_write_records($1::jsonb, $2)';

/**
 * A batch of one change: `workforce_kit_write_record` (migration 006), the same conditional write
 * for one record, which PostgreSQL runs in less time than the batch statement for one change
 * (about 1.0 against 1.13 ms in PGlite), so that a change at low load waits no longer than before.
 */
const WRITE_RECORD =
  'SELECT 1 AS arrival, data AS written_data, version AS written_version, found AS record_exists, current_external_id AS stored_external_id FROM workforce_kit_write_record($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9)';

/** An employee or a shift, as the store reads, writes and (as a sole writer) caches it. */
type RecordOfKind = StoredRecord & { readonly externalId?: ExternalId; readonly deleted: boolean };

/**
 * The most recently used records of one kind, by restaurant and GUID, and by restaurant and
 * external id: what a sole writer last read or wrote of each. Records are shared with callers,
 * which never change them (the core's records are read-only).
 */
class RecordCache<T extends RecordOfKind> {
  readonly #byGuid = new LRUCache<string, T>({ max: RECORD_CACHE_SIZE });
  readonly #guidByExternalId = new LRUCache<string, Guid>({ max: RECORD_CACHE_SIZE });

  get(restaurantGuid: Guid, id: RecordIdentifier): T | undefined {
    const guid =
      id.kind === 'guid'
        ? id.guid
        : this.#guidByExternalId.get(`${restaurantGuid} ${id.externalId}`);
    return guid === undefined ? undefined : this.#byGuid.get(`${restaurantGuid} ${guid}`);
  }

  set(record: T): void {
    this.#byGuid.set(`${record.restaurantGuid} ${record.guid}`, record);
    if (record.externalId !== undefined) {
      this.#guidByExternalId.set(`${record.restaurantGuid} ${record.externalId}`, record.guid);
    }
  }

  delete(record: T): void {
    this.#byGuid.delete(`${record.restaurantGuid} ${record.guid}`);
  }

  clear(): void {
    this.#byGuid.clear();
    this.#guidByExternalId.clear();
  }
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
 * way, each sent after it was asked for.
 *
 * @param options - the client, whether the store owns it, and how it reads and writes
 * @returns the store, once migrated; rejects if the migrations cannot be applied
 * @example
 * ```ts
 * import pg from 'pg';
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

  let closed = false;

  /**
   * A statement's name, when they are named: made from its text, so that it is the same on every
   * connection, in every store and process sharing the pool or the database (a name given in the
   * order of first use could name two texts alike on one connection, which pg refuses).
   */
  const names = new Map<string, string>();
  const named = client as unknown as NamedStatementClient;
  const run = options.namedStatements
    ? (text: string, values: unknown[]) => {
        let name = names.get(text);
        if (name === undefined) {
          name = `workforce_kit_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
          names.set(text, name);
        }
        return named.query({ name, text, values });
      }
    : (text: string, values: unknown[]) => client.query(text, values);

  /** One statement; a failure of the client, sync or async, is StorageUnavailable. */
  function query<R>(
    operation: string,
    text: string,
    params: unknown[] = [],
  ): ResultAsync<R[], StorageError> {
    if (closed) return errAsync(storageUnavailable(operation, 'store closed'));
    return ResultAsync.fromThrowable(
      () => run(text, params),
      (cause) => storageUnavailable(operation, cause),
    )().map(({ rows }) => rows as R[]);
  }

  /**
   * One statement for a batch of changes (of distinct records), sent sorted by record so that the
   * writers of several processes lock rows in one order; each change's row, in the batch's order.
   */
  async function commitBatch(batch: readonly QueuedWrite[]): Promise<(WriteRow | undefined)[]> {
    if (closed) throw new Error('store closed');
    const [first] = batch;
    if (first === undefined) return [];
    if (batch.length === 1) {
      const { rows } = await run(WRITE_RECORD, [
        first.table,
        first.restaurantGuid,
        first.guid,
        first.expectedVersion,
        first.externalId,
        first.deleted,
        first.data,
        first.events,
        OUTBOX_CHANNEL,
      ]);
      return rows as WriteRow[];
    }
    const order = batch.map((_, index) => index).sort((a, b) => compareKeys(batch[a], batch[b]));
    const changes = `[${order.map((index) => changeJson(batch[index] as QueuedWrite)).join(',')}]`;
    const { rows } = await run(WRITE_RECORDS, [changes, OUTBOX_CHANNEL]);
    const outcomes: (WriteRow | undefined)[] = new Array(batch.length);
    for (const row of rows as WriteRow[]) {
      const index = order[row.arrival - 1];
      if (index !== undefined) outcomes[index] = row;
    }
    return outcomes;
  }

  // Group commit: one write in flight, the changes arriving meanwhile queued for the next.
  const writes = new GroupCommit<QueuedWrite, WriteRow>(
    commitBatch,
    (queued) => queued.key,
    options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
    options.onBatch,
  );

  function write<T extends RecordOfKind>(
    table: 'employees' | 'shifts',
    change: ConditionalWrite<T>,
  ): ResultAsync<T, VersionConflict | IdentityChangeRefused | StorageError> {
    const operation = `${table}.write`;
    if (closed) return errAsync(storageUnavailable(operation, 'store closed'));
    let queued: QueuedWrite;
    try {
      queued = queuedWrite(table, change);
    } catch (cause) {
      return errAsync(storageUnavailable(operation, cause));
    }
    return ResultAsync.fromPromise(writes.submit(queued), (cause) =>
      storageUnavailable(operation, cause),
    ).andThen((row): Result<T, VersionConflict | IdentityChangeRefused | StorageError> => {
      if (row.written_data !== null && row.written_version !== null)
        return ok(withVersion<T>({ data: row.written_data, version: row.written_version }));
      if (row.record_exists && row.stored_external_id !== queued.externalId) {
        return err(identityChangeRefused(queued.guid));
      }
      return err(versionConflict(queued.guid, queued.expectedVersion));
    });
  }

  const first = <T>(rows: RecordRow[]): T | null => {
    const [row] = rows;
    return row === undefined ? null : withVersion<T>(row);
  };

  /**
   * The record of a restaurant named by GUID or external id: a primary or unique key lookup. Reads
   * by GUID (every change's first step) are grouped as the restaurants' are: one statement in
   * flight, the reads arriving meanwhile in the next, each sent after its request arrived. A read
   * alone goes as the plain lookup; a read by external id always does.
   */
  const findRecord = <T>(table: 'employees' | 'shifts') => {
    const operation = `${table}.find`;
    const byGuid = `SELECT data, version FROM ${table} WHERE restaurant_guid = $1 AND guid = $2`;
    const byExternalId = `SELECT data, version FROM ${table} WHERE restaurant_guid = $1 AND external_id = $2`;
    const batchByGuid = readRecordsByGuid(table);
    const readByGuid = async (keys: readonly RecordKey[]): Promise<(RecordRow | null)[]> => {
      if (closed) throw new Error('store closed');
      const [only] = keys;
      if (keys.length === 1 && only !== undefined) {
        const { rows } = await run(byGuid, [only.restaurantGuid, only.guid]);
        return [(rows as RecordRow[])[0] ?? null];
      }
      const restaurantGuids = keys.map((key) => key.restaurantGuid);
      const guids = keys.map((key) => key.guid);
      const { rows } = await run(batchByGuid, [restaurantGuids, guids]);
      const found = new Array<RecordRow | null>(keys.length).fill(null);
      for (const row of rows as (RecordRow & { i: number })[]) found[row.i - 1] = row;
      return found;
    };
    const reads = new GroupCommit<RecordKey, RecordRow | null>(
      readByGuid,
      undefined,
      MAX_READ_BATCH_SIZE,
      undefined,
    );
    return (restaurantGuid: Guid, id: RecordIdentifier): ResultAsync<T | null, StorageError> => {
      if (id.kind === 'externalId') {
        return query<RecordRow>(operation, byExternalId, [restaurantGuid, id.externalId]).map(
          (rows) => first<T>(rows),
        );
      }
      if (closed) return errAsync(storageUnavailable(operation, 'store closed'));
      return ResultAsync.fromPromise(reads.submit({ restaurantGuid, guid: id.guid }), (cause) =>
        storageUnavailable(operation, cause),
      ).map((row) => (row === null ? null : withVersion<T>(row)));
    };
  };

  /** Each record kind's reads and writes, through the cache of a sole writer. */
  function records<T extends RecordOfKind>(
    table: 'employees' | 'shifts',
    cache: RecordCache<T> | undefined,
  ) {
    const find = findRecord<T>(table);
    if (cache === undefined) {
      return { find, write: (change: ConditionalWrite<T>) => write(table, change) };
    }
    return {
      find: (
        restaurantGuid: Guid,
        id: RecordIdentifier,
      ): MaybeAsync<Result<T | null, StorageError>> => {
        // Held: answered at once, with no promise.
        const known = cache.get(restaurantGuid, id);
        if (known !== undefined) return ok(known);
        return find(restaurantGuid, id).map((record) => {
          if (record !== null) cache.set(record);
          return record;
        });
      },
      write: (change: ConditionalWrite<T>) =>
        write(table, change)
          .map((stored) => {
            cache.set(stored);
            return stored;
          })
          .mapErr((error) => {
            cache.delete(change.record);
            return error;
          }),
    };
  }

  /**
   * The restaurants of a batch of reads, in one statement: each distinct GUID once, and every read
   * of it given the same record (its JSON, then, made once for all of them).
   */
  async function readRestaurants(guids: readonly Guid[]): Promise<(Restaurant | null)[]> {
    if (closed) throw new Error('store closed');
    const { rows } = await run(READ_RESTAURANTS, [[...new Set(guids)]]);
    const byGuid = new Map<string, Restaurant>();
    for (const row of rows as { guid: string; data: unknown }[]) {
      byGuid.set(row.guid, json(row.data) as unknown as Restaurant);
    }
    return guids.map((guid) => byGuid.get(guid) ?? null);
  }

  // Reads of restaurants grouped as the writes are: one in flight, those arriving meanwhile in the
  // next. Each is sent after its request arrived, so none answers from before it; under load, a
  // GET costs a fraction of a statement.
  const restaurantReads = new GroupCommit<Guid, Restaurant | null>(
    readRestaurants,
    undefined,
    MAX_READ_BATCH_SIZE,
    undefined,
  );
  const findRestaurant = (restaurantGuid: Guid): ResultAsync<Restaurant | null, StorageError> => {
    if (closed) return errAsync(storageUnavailable('restaurants.findByGuid', 'store closed'));
    return ResultAsync.fromPromise(restaurantReads.submit(restaurantGuid), (cause) =>
      storageUnavailable('restaurants.findByGuid', cause),
    );
  };

  const restaurants = new Map<Guid, Restaurant>();
  const cachedRestaurant = (
    restaurantGuid: Guid,
  ): MaybeAsync<Result<Restaurant | null, StorageError>> => {
    const known = restaurants.get(restaurantGuid);
    if (known !== undefined) return ok(known);
    return findRestaurant(restaurantGuid).map((restaurant) => {
      if (restaurant !== null) restaurants.set(restaurantGuid, restaurant);
      return restaurant;
    });
  };

  const employeeCache = options.soleWriter ? new RecordCache<Employee>() : undefined;
  const shiftCache = options.soleWriter ? new RecordCache<Shift>() : undefined;

  return {
    employees: records(TABLES.employees, employeeCache),
    shifts: records(TABLES.shifts, shiftCache),
    restaurants: { findByGuid: options.soleWriter ? cachedRestaurant : findRestaurant },
    events: {
      list: (restaurantGuid?: Guid) =>
        (restaurantGuid === undefined
          ? query<{ payload: unknown }>(
              'events.list',
              'SELECT payload FROM outbox ORDER BY position',
            )
          : query<{ payload: unknown }>(
              'events.list',
              'SELECT payload FROM outbox WHERE restaurant_guid = $1 ORDER BY position',
              [restaurantGuid],
            )
        ).map((rows) => rows.map((row) => json(row.payload) as unknown as RecordedEvent)),
    },
    seed: (seed: SeedRecords) =>
      query<{ seeded: boolean }>('seed', 'SELECT workforce_kit_seed($1::jsonb) AS seeded', [
        JSON.stringify({
          restaurants: seed.restaurants,
          employees: seed.employees,
          shifts: seed.shifts,
        }),
      ]).map(([row]): SeedOutcome => {
        restaurants.clear();
        employeeCache?.clear();
        shiftCache?.clear();
        return { seeded: row?.seeded === true };
      }),
    ping: () => query('ping', 'SELECT 1').map(() => undefined),
    async close() {
      if (closed) return;
      closed = true;
      if (!options.ownsClient) return;
      const owned = client as Partial<{ end(): Promise<void>; close(): Promise<void> }>;
      await (owned.end?.() ?? owned.close?.());
    },
  };
}
