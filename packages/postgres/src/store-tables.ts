import {
  type ChangeRead,
  type ConditionalWrite,
  type Guid,
  type IdentityChangeRefused,
  identityChangeRefused,
  type MaybeAsync,
  type RecordIdentifier,
  type Restaurant,
  type StorageError,
  storageUnavailable,
  type VersionConflict,
  versionConflict,
} from '@workforce-kit/core';
import { LRUCache } from 'lru-cache';
import { err, ok, type Result, ResultAsync } from 'neverthrow';
import { GroupCommit } from './group-commit.js';
import type { RecordWrites } from './record-writes.js';
import { outcomeOf, type StatementRunner } from './statement-runner.js';
import {
  json,
  type RecordOfKind,
  type RecordRow,
  type Table,
  withVersion,
} from './store-records.js';

/** How many employees, and how many shifts, a sole writer's store keeps. */
export const RECORD_CACHE_SIZE = 10_000;

/** The most reads (of restaurants, or of one kind of record by GUID) one statement carries. */
const MAX_READ_BATCH_SIZE = 256;

/** The restaurants of a batch of reads (each GUID once): a primary key lookup per GUID. */
const READ_RESTAURANTS = 'SELECT guid, data FROM restaurants WHERE guid = ANY($1::uuid[])';

/**
 * The records of a batch of reads by restaurant and GUID: a primary key lookup per read, each row
 * with the read's place in the batch (`i`, from 1).
 */
const readRecordsByGuid = (table: Table) =>
  `SELECT read.i::integer AS i, record.data, record.version FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS read (restaurant_guid, guid, i) JOIN ${table} AS record ON record.restaurant_guid = read.restaurant_guid AND record.guid = read.guid`;

/** A read of a record by its restaurant and GUID, queued for its batch. */
interface RecordKey {
  readonly restaurantGuid: Guid;
  readonly guid: Guid;
}

/**
 * The most recently used records of one kind, by restaurant and GUID, and by restaurant and
 * external id: what this store last read or wrote of each. Records are shared with callers,
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

  /** Keeps a record, unless a later version of it is kept already (a read that raced a write). */
  set(record: T): void {
    const key = `${record.restaurantGuid} ${record.guid}`;
    const kept = this.#byGuid.get(key);
    if (kept !== undefined && kept.version > record.version) return;
    this.#byGuid.set(key, record);
    if (record.externalId !== undefined) {
      this.#guidByExternalId.set(`${record.restaurantGuid} ${record.externalId}`, record.guid);
    }
  }

  delete(restaurantGuid: Guid, guid: Guid): void {
    this.#byGuid.delete(`${restaurantGuid} ${guid}`);
  }

  clear(): void {
    this.#byGuid.clear();
    this.#guidByExternalId.clear();
  }
}

/**
 * What a table's records kept in process answer: every read, when this store is the database's
 * only writer (they are exact); only the reads before a change ({@link ChangeRead}), when other
 * processes write the same database (they may be stale, and the change's write confirms them).
 */
export type RecordKeeping = 'sole-writer' | 'shared-database';

/** Whether an identifier is the read a use case makes before a change. */
function isChangeRead(id: RecordIdentifier): id is ChangeRead {
  return typeof (id as Partial<ChangeRead>).fromCache === 'boolean';
}

/**
 * One record kind's table: its reads (by GUID, grouped as the writes are; by external id, one
 * lookup each) and its writes, through the records it keeps in process: the last this store read
 * or wrote of each, which answer as {@link RecordKeeping} says.
 */
export class RecordTable<T extends RecordOfKind> {
  readonly #table: Table;
  readonly #statements: StatementRunner;
  readonly #writes: RecordWrites;
  readonly #kept = new RecordCache<T>();
  readonly #soleWriter: boolean;
  readonly #reads: GroupCommit<RecordKey, RecordRow | null>;
  readonly #byGuid: string;
  readonly #byExternalId: string;
  readonly #batchByGuid: string;
  readonly #writeOperation: string;

  constructor(
    table: Table,
    statements: StatementRunner,
    writes: RecordWrites,
    keeping: RecordKeeping,
  ) {
    this.#table = table;
    this.#statements = statements;
    this.#writes = writes;
    this.#soleWriter = keeping === 'sole-writer';
    this.#byGuid = `SELECT data, version FROM ${table} WHERE restaurant_guid = $1 AND guid = $2`;
    this.#byExternalId = `SELECT data, version FROM ${table} WHERE restaurant_guid = $1 AND external_id = $2`;
    this.#batchByGuid = readRecordsByGuid(table);
    this.#writeOperation = `${table}.write`;
    this.#reads = new GroupCommit({
      commit: (keys) => this.#readByGuid(keys),
      maxBatchSize: MAX_READ_BATCH_SIZE,
    });
  }

  /**
   * The record of a restaurant by GUID or external id: at once from the records kept, when they
   * may answer this read (a sole writer's answer every read; otherwise only a {@link ChangeRead},
   * told so); else from the database, and kept.
   */
  find(restaurantGuid: Guid, id: RecordIdentifier): MaybeAsync<Result<T | null, StorageError>> {
    const changeRead = isChangeRead(id);
    if (this.#soleWriter || changeRead) {
      const kept = this.#kept.get(restaurantGuid, id);
      if (kept !== undefined) {
        if (changeRead && !this.#soleWriter) id.fromCache = true;
        return ok(kept);
      }
    }
    return this.#read(restaurantGuid, id).map((record) => {
      if (record !== null) this.#kept.set(record);
      return record;
    });
  }

  /**
   * A conditional write: its stored record, kept; or why not, with the record as the database
   * holds it kept instead (or none, when the outcome is not known).
   */
  write(
    change: ConditionalWrite<T>,
  ): ResultAsync<T, VersionConflict | IdentityChangeRefused | StorageError> {
    const { record } = change;
    type Outcome = Result<T, VersionConflict | IdentityChangeRefused | StorageError>;
    // The record as held at the version the change read: only what changed of it is sent.
    const held = this.#kept.get(record.restaurantGuid, { kind: 'guid', guid: record.guid });
    const base = held?.version === change.expectedVersion ? held : undefined;
    const outcome = this.#writes.write(this.#table, change, base).then(
      (outcome): Outcome => {
        if (outcome.written) {
          this.#kept.set(outcome.record);
          return ok(outcome.record);
        }
        if (outcome.current === null) this.#kept.delete(record.restaurantGuid, record.guid);
        else this.#kept.set(outcome.current);
        return err(
          outcome.identityChanged
            ? identityChangeRefused(record.guid)
            : versionConflict(record.guid, change.expectedVersion),
        );
      },
      (cause: unknown): Outcome => {
        // Committed or not, it is not known: what is kept of the record is dropped.
        this.#kept.delete(record.restaurantGuid, record.guid);
        return err(storageUnavailable(this.#writeOperation, cause));
      },
    );
    return new ResultAsync(outcome);
  }

  /** Drops what is kept (the store was seeded). */
  clear(): void {
    this.#kept.clear();
  }

  /** A read from the database: by GUID grouped with the reads that arrive meanwhile. */
  #read(restaurantGuid: Guid, id: RecordIdentifier): ResultAsync<T | null, StorageError> {
    const operation = `${this.#table}.find`;
    if (id.kind === 'externalId') {
      return this.#statements
        .query<RecordRow>(operation, this.#byExternalId, [restaurantGuid, id.externalId])
        .map(([row]) => (row === undefined ? null : withVersion<T>(row)));
    }
    return outcomeOf(operation, this.#reads.submit({ restaurantGuid, guid: id.guid })).map((row) =>
      row === null ? null : withVersion<T>(row),
    );
  }

  /** A batch of reads by GUID: alone, the plain lookup; else one statement, rows in order. */
  async #readByGuid(keys: readonly RecordKey[]): Promise<(RecordRow | null)[]> {
    const [only] = keys;
    if (keys.length === 1 && only !== undefined) {
      const { rows } = await this.#statements.run(this.#byGuid, [only.restaurantGuid, only.guid]);
      return [(rows as RecordRow[])[0] ?? null];
    }
    const restaurantGuids = keys.map((key) => key.restaurantGuid);
    const guids = keys.map((key) => key.guid);
    const { rows } = await this.#statements.run(this.#batchByGuid, [restaurantGuids, guids]);
    const found = new Array<RecordRow | null>(keys.length).fill(null);
    for (const row of rows as (RecordRow & { i: number })[]) found[row.i - 1] = row;
    return found;
  }
}

/**
 * The restaurants, read grouped as the writes are: one statement in flight, those arriving
 * meanwhile in the next, each sent after its request arrived (so none answers from before it).
 * A sole writer reads each restaurant once.
 */
export class RestaurantTable {
  readonly #statements: StatementRunner;
  readonly #reads: GroupCommit<Guid, Restaurant | null>;
  readonly #cache: Map<Guid, Restaurant> | undefined;

  constructor(statements: StatementRunner, soleWriter: boolean) {
    this.#statements = statements;
    this.#cache = soleWriter ? new Map() : undefined;
    this.#reads = new GroupCommit({
      commit: (guids) => this.#readAll(guids),
      maxBatchSize: MAX_READ_BATCH_SIZE,
    });
  }

  findByGuid(restaurantGuid: Guid): MaybeAsync<Result<Restaurant | null, StorageError>> {
    const cache = this.#cache;
    const known = cache?.get(restaurantGuid);
    if (known !== undefined) return ok(known);
    const found = outcomeOf('restaurants.findByGuid', this.#reads.submit(restaurantGuid));
    if (cache === undefined) return found;
    return found.map((restaurant) => {
      if (restaurant !== null) cache.set(restaurantGuid, restaurant);
      return restaurant;
    });
  }

  /** Drops what a sole writer holds (the store was seeded). */
  clear(): void {
    this.#cache?.clear();
  }

  /** A batch of reads in one statement: each distinct GUID once, its reads given one record. */
  async #readAll(guids: readonly Guid[]): Promise<(Restaurant | null)[]> {
    const { rows } = await this.#statements.run(READ_RESTAURANTS, [[...new Set(guids)]]);
    const byGuid = new Map<string, Restaurant>();
    for (const row of rows as { guid: string; data: unknown }[]) {
      byGuid.set(row.guid, json<Restaurant>(row.data));
    }
    return guids.map((guid) => byGuid.get(guid) ?? null);
  }
}
