import { createHash } from 'node:crypto';
import { type StorageError, storageUnavailable } from '@workforce-kit/core';
import { ResultAsync } from 'neverthrow';
import type { NamedStatementClient, SqlClient } from './sql-client.js';

/**
 * Runs the store's statements: as named prepared statements when asked, each name made from its
 * text (the same on every connection and in every process sharing the database); none once the
 * store is closed.
 */
export class StatementRunner {
  readonly #client: SqlClient;
  readonly #named: NamedStatementClient | undefined;
  readonly #names = new Map<string, string>();
  #closed = false;

  constructor(client: SqlClient, namedStatements: boolean) {
    this.#client = client;
    // Cast: `namedStatements` is the caller's word that the client also takes a config, as pg's do.
    this.#named = namedStatements ? (client as unknown as NamedStatementClient) : undefined;
  }

  get closed(): boolean {
    return this.#closed;
  }

  close(): void {
    this.#closed = true;
  }

  /** Runs one statement; rejects once the store is closed. */
  async run(text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
    if (this.#closed) throw new Error('store closed');
    if (this.#named === undefined) return this.#client.query(text, values);
    return this.#named.query({ name: this.#nameOf(text), text, values });
  }

  /** One statement's rows; any failure of the client, sync or async, is StorageUnavailable. */
  query<R>(
    operation: string,
    text: string,
    values: unknown[] = [],
  ): ResultAsync<R[], StorageError> {
    return outcomeOf(operation, this.run(text, values)).map(({ rows }) => rows as R[]);
  }

  #nameOf(text: string): string {
    let name = this.#names.get(text);
    if (name === undefined) {
      name = statementName(text);
      this.#names.set(text, name);
    }
    return name;
  }
}

/**
 * A prepared statement's name, made from its text: the same on every connection and in every
 * process sharing the database.
 */
export function statementName(text: string): string {
  return `workforce_kit_${createHash('sha256').update(text).digest('hex').slice(0, 32)}`;
}

/** A promise's value as a Result: its rejection is StorageUnavailable for `operation`. */
export function outcomeOf<T>(operation: string, promise: Promise<T>): ResultAsync<T, StorageError> {
  return ResultAsync.fromPromise(promise, (cause) => storageUnavailable(operation, cause));
}
