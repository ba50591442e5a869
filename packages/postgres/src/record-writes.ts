import type { ConditionalWrite, Guid } from '@workforce-kit/core';
import { GroupCommit } from './group-commit.js';
import { OUTBOX_CHANNEL } from './outbox-schema.js';
import type { StatementRunner } from './statement-runner.js';
import { type RecordOfKind, type Table, withVersion } from './store-records.js';

/** The most changes one write statement carries, unless the store's `maxBatchSize` says otherwise. */
export const DEFAULT_MAX_BATCH_SIZE = 64;

/**
 * The conditional writes of a batch of records and their events, each against the version it
 * read: `workforce_kit_change_records` (migration 009, which says what it does).
 */
const WRITE_RECORDS =
  'SELECT arrival, written_version, record_exists, stored_external_id, stored_data, stored_version FROM workforce_kit_change_records($1::jsonb, $2)';

/**
 * The same conditional write for a batch of one change (migration 009), which PostgreSQL runs in
 * less time than the batch statement, so that a change at low load waits no longer.
 */
const WRITE_RECORD =
  'SELECT 1 AS arrival, written_version, record_exists, stored_external_id, stored_data, stored_version FROM workforce_kit_change_record($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9::text[], $10::jsonb, $11)';

/**
 * One change's row: `arrival` is its place in the batch, from 1; a change written has its new
 * version, one not written the record as it stands (or none: `record_exists` false).
 */
interface WriteRow {
  readonly arrival: number;
  readonly written_version: number | null;
  readonly record_exists: boolean;
  readonly stored_external_id: string | null;
  readonly stored_data: Record<string, unknown> | null;
  readonly stored_version: number | null;
}

/**
 * What became of a change: written, with the record as stored; or not, with the record as it
 * stands in the database (null when there is none) and whether the change would have changed its
 * external id (an identity change, refused) rather than lost a race.
 */
export type ChangeOutcome<T> =
  | { readonly written: true; readonly record: T }
  | { readonly written: false; readonly current: T | null; readonly identityChanged: boolean };

/**
 * A change queued for its batch, serialised: the store keeps none of the caller's objects. It
 * carries the record's data whole, or only what changed of the record the store holds at the
 * version the change read (`base`).
 */
interface QueuedWrite {
  readonly table: Table;
  /** The record: changes of one record go to separate batches. */
  readonly key: string;
  readonly restaurantGuid: Guid;
  readonly guid: Guid;
  readonly expectedVersion: number;
  readonly externalId: string | null;
  readonly deleted: boolean;
  /** The record but its version (which has its own column), as JSON; or null, with `patch`. */
  readonly data: string | null;
  /** The fields set, as a JSON object, and those dropped, when `data` is null. */
  readonly patch: string | null;
  readonly removed: readonly string[];
  /** Its events, as JSON. */
  readonly events: string;
}

function queuedWrite<T extends RecordOfKind>(
  table: Table,
  change: ConditionalWrite<T>,
  base: T | undefined,
): QueuedWrite {
  const { record, expectedVersion } = change;
  const altered = base === undefined ? undefined : alterations(base, record);
  let data: string | null = null;
  if (altered === undefined) {
    const { version: _version, ...fields } = record;
    data = JSON.stringify(fields);
  }
  return {
    table,
    key: `${table} ${record.restaurantGuid} ${record.guid}`,
    restaurantGuid: record.restaurantGuid,
    guid: record.guid,
    expectedVersion,
    externalId: record.externalId ?? null,
    deleted: record.deleted,
    data,
    patch: altered?.patch ?? null,
    removed: altered?.removed ?? NOTHING_REMOVED,
    events: JSON.stringify(change.events),
  };
}

const NOTHING_REMOVED: readonly string[] = Object.freeze([]);

/**
 * What a change alters of the record the store holds at the version it read, field by field at the
 * top level: the fields it sets, as a JSON object, and those it drops. A field the change keeps is
 * the held record's own value (the state machines carry it over), so a field whose value is not
 * the same is one it set. Undefined, and the record goes whole, when a field set is not a text, a
 * number, a boolean or null (a list or an object would be the caller's, which the store does not
 * keep), or is undefined.
 */
function alterations(
  base: RecordOfKind,
  next: RecordOfKind,
): { readonly patch: string; readonly removed: readonly string[] } | undefined {
  // Cast: records are plain JSON objects whose interfaces have no index signature; read by name.
  const before = base as unknown as Readonly<Record<string, unknown>>;
  const after = next as unknown as Readonly<Record<string, unknown>>;
  let patch = '';
  for (const key of Object.keys(after)) {
    const value = after[key];
    if (key === 'version' || value === before[key]) continue;
    const type = typeof value;
    if (value !== null && type !== 'string' && type !== 'number' && type !== 'boolean') {
      return undefined;
    }
    patch += `${patch === '' ? '{' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  const removed = Object.keys(before).filter(
    (key) => key !== 'version' && !Object.hasOwn(after, key),
  );
  return { patch: patch === '' ? '{}' : `${patch}}`, removed };
}

/** A change as an element of `workforce_kit_change_records`' JSON array (its parts serialised once). */
function changeJson(queued: QueuedWrite): string {
  const text = JSON.stringify;
  const record =
    queued.data === null
      ? `"data":null,"patch":${queued.patch},"removed":${text(queued.removed)}`
      : `"data":${queued.data}`;
  return `{"kind":"${queued.table}","restaurant":${text(queued.restaurantGuid)},"guid":${text(queued.guid)},"expected":${queued.expectedVersion},"external_id":${text(queued.externalId)},"deleted":${queued.deleted},${record},"events":${queued.events}}`;
}

/**
 * The JSON array of a batch's changes in `order`, made by one join of its parts (brackets and commas
 * among them), so that the text is flat: pg measures it before sending, which flattens a text that
 * was joined and then put inside its brackets, a copy of the batch's whole text.
 */
function batchJson(batch: readonly QueuedWrite[], order: readonly number[]): string {
  const parts: string[] = new Array(order.length * 2 + 1);
  parts[0] = '[';
  for (let i = 0; i < order.length; i++) {
    parts[i * 2 + 1] = changeJson(batch[order[i] as number] as QueuedWrite);
    parts[i * 2 + 2] = ',';
  }
  parts[parts.length - 1] = ']';
  return parts.join('');
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

  /**
   * Writes a record of `table` at the version its change read, whole, or only what changed of
   * `base`, the record the store holds at that version: what became of it, once its batch has
   * committed; rejects when the statement failed.
   */
  async write<T extends RecordOfKind>(
    table: Table,
    change: ConditionalWrite<T>,
    base?: T,
  ): Promise<ChangeOutcome<T>> {
    const queued = queuedWrite(table, change, base);
    return outcomeOfRow(queued, change.record, await this.#group.submit(queued));
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
        first.patch,
        first.removed,
        first.events,
        OUTBOX_CHANNEL,
      ]);
      return rows as WriteRow[];
    }
    const order = batch.map((_, index) => index).sort((a, b) => compareKeys(batch[a], batch[b]));
    const changes = batchJson(batch, order);
    const { rows } = await this.#statements.run(WRITE_RECORDS, [changes, OUTBOX_CHANNEL]);
    const outcomes: (WriteRow | undefined)[] = new Array(batch.length);
    for (const row of rows as WriteRow[]) {
      const index = order[row.arrival - 1];
      if (index !== undefined) outcomes[index] = row;
    }
    return outcomes;
  }
}

/**
 * A change's outcome from its row. The record written is the store's own: parsed from the JSON it
 * sent, or, for a change of what changed only, the caller's fields, which are the held record's but
 * for the texts, numbers and booleans the change set, on an object of its own.
 */
function outcomeOfRow<T extends RecordOfKind>(
  queued: QueuedWrite,
  record: T,
  row: WriteRow,
): ChangeOutcome<T> {
  if (row.written_version !== null) {
    if (queued.data === null)
      return { written: true, record: { ...record, version: row.written_version } };
    const written = JSON.parse(queued.data) as Record<string, unknown>;
    written.version = row.written_version;
    return { written: true, record: written as T };
  }
  const current =
    row.stored_data === null || row.stored_version === null
      ? null
      : withVersion<T>({ data: row.stored_data, version: row.stored_version });
  return {
    written: false,
    current,
    identityChanged: row.record_exists && row.stored_external_id !== queued.externalId,
  };
}
