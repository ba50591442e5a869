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

/** JSON columns arrive parsed from pg and PGlite; text from a client configured otherwise. */
export function json(value: unknown): Record<string, unknown> {
  return (typeof value === 'string' ? JSON.parse(value) : value) as Record<string, unknown>;
}

/** A record of its row. */
export function withVersion<T>(row: RecordRow): T {
  return { ...json(row.data), version: row.version } as T;
}
