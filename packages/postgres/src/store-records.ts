import type { ExternalId, StoredRecord } from '@workforce-kit/core';

/** The tables of the two record kinds the store writes. */
export type Table = 'employees' | 'shifts';

/** An employee or a shift, as the store reads, writes and (as a sole writer) caches it. */
export type RecordOfKind = StoredRecord & {
  readonly externalId?: ExternalId;
  readonly deleted: boolean;
};

/** A record's row: its data (all but the version) and its version. */
export interface RecordRow {
  readonly data: Record<string, unknown>;
  readonly version: number;
}

/**
 * A JSON column's value, of the type the store wrote into it: parsed by pg and PGlite, text from a
 * client configured otherwise.
 */
export function json<T = Record<string, unknown>>(value: unknown): T {
  return typeof value === 'string' ? JSON.parse(value) : (value as T);
}

/** A record of its row. */
export function withVersion<T>(row: RecordRow): T {
  return { ...json(row.data), version: row.version } as T;
}
