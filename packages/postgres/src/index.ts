/**
 * The workforce-kit store for PostgreSQL: one implementation of `@workforce-kit/core`'s ports over
 * a PostgreSQL server (`pg`, shared by many stateless processes) or an embedded PGlite database.
 *
 * @packageDocumentation
 */
export {
  type DirectoryLock,
  DirectoryLockedError,
  LOCK_FILE_NAME,
  type LockHolder,
  lockDirectory,
} from './directory-lock.js';
export {
  ADVISORY_LOCK_KEY,
  loadMigrations,
  type Migration,
  migrate,
  migrationStatement,
} from './migrations.js';
export {
  type ListenOptions,
  listenForNotifications,
  type NotificationEvents,
  type NotificationListener,
} from './notifications.js';
export {
  type DestinationBacklog,
  outboxBacklog,
  purgeDeadOutboxDeliveries,
  type RedriveFilter,
  redriveOutboxDeliveries,
  registerOutboxDestinations,
  retireOutboxDestination,
} from './outbox-admin.js';
export { createOutboxRelay } from './outbox-relay.js';
export { type OutboxRetention, RETENTION_DEFAULTS } from './outbox-retention.js';
export { RETRY_DEFAULTS, type RetryPolicy, retryDelayMs } from './outbox-retry.js';
export { OUTBOX_CHANNEL } from './outbox-schema.js';
export type {
  Deliverer,
  DeliveryCounts,
  DeliveryOutcome,
  DeliveryResult,
  OutboxDelivery,
  OutboxRelay,
  OutboxRelayOptions,
  OutboxRelayStats,
} from './outbox-types.js';
export {
  openPGlite,
  PGLITE_SETTINGS,
  type PGliteCreation,
  PGliteOpenError,
} from './pglite.js';
export {
  createPostgresRateLimits,
  type LeasedWindowCounter,
  type PostgresRateLimits,
  type PostgresRateLimitsOptions,
  RATE_LIMIT_LEASE_DEFAULTS,
} from './postgres-rate-limits.js';
export {
  createPostgresStore,
  DEFAULT_MAX_BATCH_SIZE,
  type PostgresStoreOptions,
  RECORD_CACHE_SIZE,
} from './postgres-store.js';
export type { SqlClient } from './sql-client.js';
