/**
 * What the store needs of a PostgreSQL client: one statement at a time, with parameters. A
 * `pg.Pool` and a PGlite instance both satisfy it as they are. Every operation of the store is a
 * single statement (a change and its event are one data-modifying CTE), so no transaction method
 * is needed.
 *
 * @example
 * ```ts
 * const client: SqlClient = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const embedded: SqlClient = await PGlite.create('.data/pglite');
 * ```
 */
export interface SqlClient {
  /** Runs one statement with its `$1`, `$2`, … parameters; resolves with the rows it returned. */
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}
