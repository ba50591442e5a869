// What the TSDoc examples of packages/postgres/src take as given: each example sees these names
// unless it declares its own (scripts/check-tsdoc-examples.mjs, docs/development.md).
import type { SeedRecords, WorkforceStore } from '@workforce-kit/core';
import type { NotificationListener, OutboxDelivery, OutboxRelay } from '@workforce-kit/postgres';
import type pg from 'pg';

/** The host's connection pool, and where it connects. */
export declare const pool: pg.Pool;
export declare const connectionString: string;
/** The store over that database, and the secret the host's access tokens are signed with. */
export declare const store: WorkforceStore;
export declare const hs256Secret: string;
/** Records to seed a store with (a parsed seed file). */
export declare const seed: SeedRecords;
/** The host's logger (pino's methods; this package does not depend on pino). */
export declare const logger: { warn(fields: object, message: string): void };

/** The outbox relay the host started, and what it listens and polls with. */
export declare const relay: OutboxRelay;
export declare const listener: NotificationListener;
export declare const pollIntervalMs: number;
/** Claims the next batch of deliveries; empty when none is due. */
export declare const claim: () => Promise<readonly OutboxDelivery[]>;
/** Sends one delivery to its receiver: whether it took it. */
export declare const send: (delivery: OutboxDelivery) => Promise<boolean>;

/** A histogram of the host's (a prom-client Histogram; this package does not depend on it). */
export declare const batchSizes: { observe(value: number): void };
/** A metrics client of the host's (StatsD-like). */
export declare const metrics: {
  gauge(name: string, value: number): void;
  counter(name: string, value: number, labels: Readonly<Record<string, string>>): void;
};
