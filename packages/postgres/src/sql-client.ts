/**
 * What the store needs of a PostgreSQL client: one statement at a time, with parameters. A
 * `pg.Pool` and a PGlite instance both satisfy it as they are. Every operation of the store is a
 * single statement (a batch of changes and their events are one statement), so no transaction
 * method is needed.
 *
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite';
 * import pg from 'pg';
 *
 * const client: SqlClient = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const embedded: SqlClient = await PGlite.create('.data/pglite');
 * ```
 */
export interface SqlClient {
  /** Runs one statement with its `$1`, `$2`, … parameters; resolves with the rows it returned. */
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A client that also runs named prepared statements, as `pg`'s `Pool` and `Client` do. */
export interface NamedStatementClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}
