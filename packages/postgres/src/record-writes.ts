import {
  type ConditionalWrite,
  type Guid,
  type IdentityChangeRefused,
  identityChangeRefused,
  type StorageError,
  type VersionConflict,
  versionConflict,
} from '@workforce-kit/core';
import { err, ok, type Result, type ResultAsync } from 'neverthrow';
import { GroupCommit } from './group-commit.js';
import { OUTBOX_CHANNEL } from './outbox-schema.js';
import { outcomeOf, type StatementRunner } from './statement-runner.js';
import { type RecordOfKind, type Table, withVersion } from './store-records.js';

/** The most changes one write statement carries, unless the store's `maxBatchSize` says otherwise. */
export const DEFAULT_MAX_BATCH_SIZE = 64;

/**
 * The conditional writes of a batch of records and their events, each against the version it
 * read: `workforce_kit_write_records` (migration 008, which says what it does).
 */
const WRITE_RECORDS =
  'SELECT arrival, written_data, written_version, record_exists, stored_external_id FROM workforce_kit_write_records($1::jsonb, $2)';

/**
 * The same conditional write for a batch of one change (migration 006), which PostgreSQL runs in
 * less time than the batch statement, so that a change at low load waits no longer.
 */
const WRITE_RECORD =
  'SELECT 1 AS arrival, data AS written_data, version AS written_version, found AS record_exists, current_external_id AS stored_external_id FROM workforce_kit_write_record($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9)';

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
  readonly table: Table;
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
function queuedWrite<T extends RecordOfKind>(
  table: Table,
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
 * The conditional writes of both record kinds, committed in groups: one statement in flight, the
 * changes that arrive meanwhile in the next (at most one per record), sent sorted by record so
 * that the writers of several processes lock rows in one order.
 */
export class RecordWrites {
  readonly #statements: StatementRunner;
  readonly #group: GroupCommit<QueuedWrite, WriteRow>;

  /**
   * @param options - the most changes one statement carries, and who is told each batch's size
   */
  constructor(
    statements: StatementRunner,
    options: { readonly maxBatchSize?: number; readonly onBatch?: (size: number) => void },
  ) {
    this.#statements = statements;
    this.#group = new GroupCommit({
      commit: (batch) => this.#commit(batch),
      keyOf: (queued) => queued.key,
      maxBatchSize: options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
      ...(options.onBatch === undefined ? {} : { onBatch: options.onBatch }),
    });
  }

  /** Writes a record of `table` at the version its change read; its stored record, or why not. */
  write<T extends RecordOfKind>(
    table: Table,
    change: ConditionalWrite<T>,
  ): ResultAsync<T, VersionConflict | IdentityChangeRefused | StorageError> {
    const operation = `${table}.write`;
    let queued: QueuedWrite;
    try {
      queued = queuedWrite(table, change);
    } catch (cause) {
      return outcomeOf(operation, Promise.reject(cause));
    }
    return outcomeOf(operation, this.#group.submit(queued)).andThen((row) =>
      writtenOf<T>(queued, row),
    );
  }

  /** One statement for a batch of changes (of distinct records); each change's row, in order. */
  async #commit(batch: readonly QueuedWrite[]): Promise<(WriteRow | undefined)[]> {
    const [first] = batch;
    if (first === undefined) return [];
    if (batch.length === 1) {
      const { rows } = await this.#statements.run(WRITE_RECORD, [
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
    const { rows } = await this.#statements.run(WRITE_RECORDS, [changes, OUTBOX_CHANNEL]);
    const outcomes: (WriteRow | undefined)[] = new Array(batch.length);
    for (const row of rows as WriteRow[]) {
      const index = order[row.arrival - 1];
      if (index !== undefined) outcomes[index] = row;
    }
    return outcomes;
  }
}

/** A change's outcome from its row: the stored record, a refused change of identity, or a conflict. */
function writtenOf<T>(
  queued: QueuedWrite,
  row: WriteRow,
): Result<T, VersionConflict | IdentityChangeRefused | StorageError> {
  if (row.written_data !== null && row.written_version !== null) {
    return ok(withVersion<T>({ data: row.written_data, version: row.written_version }));
  }
  if (row.record_exists && row.stored_external_id !== queued.externalId) {
    return err(identityChangeRefused(queued.guid));
  }
  return err(versionConflict(queued.guid, queued.expectedVersion));
}
