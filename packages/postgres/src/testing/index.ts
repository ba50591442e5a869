/**
 * Test support of the PostgreSQL store: a throwaway PostgreSQL server, and empty databases on a
 * server. Needs `pg`.
 *
 * @packageDocumentation
 */
export {
  createDatabase,
  type PostgresServer,
  type PostgresServerOptions,
  startPostgresServer,
} from './postgres-server.js';
