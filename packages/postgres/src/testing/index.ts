/**
 * Test support of the PostgreSQL store: a throwaway PostgreSQL server.
 *
 * @packageDocumentation
 */
export { type PostgresServer, startPostgresServer } from './postgres-server.js';
