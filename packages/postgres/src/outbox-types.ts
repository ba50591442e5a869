// What a relay hands over and reports: the deliveries, the deliverer's results, the outcomes,
// the relay's options and its handle (createOutboxRelay, in outbox-relay.ts).
import type { RecordedEvent } from '@workforce-kit/core';
import type { DestinationBacklog } from './outbox-admin.js';
import type { OutboxRetention } from './outbox-retention.js';
import type { RetryPolicy } from './outbox-retry.js';
import type { SqlClient } from './sql-client.js';

/** One event to hand to one destination: a claimed delivery. */
export interface OutboxDelivery {
  /** Where it goes (a webhook URL, for the reference server). */
  readonly destination: string;
  /** The event's place in the outbox: events of one subject are handed over in this order. */
  readonly position: number;
  /** The event as it was stored with its change. */
  readonly event: RecordedEvent;
  /**
   * The record (employee or shift) as it stood after the change, as the store keeps it (without
   * its version, passcode and swipe card); `null` for an event stored before the relay existed.
   */
  readonly record: Readonly<Record<string, unknown>> | null;
  /** Which attempt this is: 1 for the first. */
  readonly attempt: number;
  /** When the event was stored (ms since the epoch). */
  readonly recordedAt: number;
}

/** What became of one delivery, as the deliverer reports it. */
export type DeliveryResult =
  | { readonly outcome: 'delivered' }
  /** Not delivered: try again later (with backoff), or dead-letter it past the bounds. */
  | { readonly outcome: 'retry'; readonly error: string };

/**
 * Hands a batch over (to HTTP receivers, a queue, …) and reports, for each delivery in the same
 * order, delivered or retry. A delivery reported as anything else, or missing, or a rejection of
 * the whole call, is a retry. The batch holds at most one delivery per subject and destination,
 * so its deliveries may be handed over concurrently. `signal` aborts when the relay is stopped
 * and stops waiting: give up then (the deliveries are handed to a relay again).
 */
export type Deliverer = (
  batch: readonly OutboxDelivery[],
  signal: AbortSignal,
) => Promise<readonly DeliveryResult[]>;

/** What became of a delivery attempt, for metrics and logs. */
export interface DeliveryOutcome {
  readonly delivery: OutboxDelivery;
  /**
   * `delivered`; `retry` (another attempt is scheduled); `dead` (the attempts or the age ran out:
   * it waits in the dead-letter state to be re-driven); `superseded` (the lease had run out and
   * another relay had claimed it: this outcome was not recorded).
   */
  readonly outcome: 'delivered' | 'retry' | 'dead' | 'superseded';
  readonly error?: string;
  /** How long the deliverer took over the batch this delivery was in. */
  readonly durationMs: number;
}

/** Options of {@link createOutboxRelay}. */
export interface OutboxRelayOptions {
  /** The store's database: a `pg.Pool`, PGlite, or any {@link SqlClient} (which is then polled). */
  readonly client: SqlClient;
  /**
   * The destinations this relay delivers to, registered at start: from then on, every change
   * queues a delivery of its event to each of them.
   */
  readonly destinations: readonly string[];
  readonly deliver: Deliverer;
  /** Deliveries claimed at once. @default 50 */
  readonly batchSize?: number;
  /**
   * How long a claim holds its deliveries: after that, a relay that stopped answering (killed,
   * hung) loses them to another. It must exceed the deliverer's longest batch. @default 30_000
   */
  readonly leaseMs?: number;
  /**
   * How often to look for due deliveries besides notifications (retries come due so), and to try
   * to take the lead when another relay holds it. @default 1000
   */
  readonly pollIntervalMs?: number;
  /** `LISTEN` for the write statement's notifications (pg.Pool and PGlite). @default true */
  readonly listen?: boolean;
  /** Batches handed over at once. @default 1 */
  readonly concurrency?: number;
  readonly retry?: RetryPolicy;
  /**
   * The outbox's retention, which this relay runs on a schedule: delivered deliveries, and events
   * with no delivery left, are deleted once older than `periodMs` (7 days); dead deliveries and
   * their events stay. `false`: this relay deletes nothing (another may). See {@link OutboxRetention}.
   * @default `{}` (the defaults)
   */
  readonly retention?: OutboxRetention | false;
  /** This relay's name in `claimed_by`. @default `host:pid:random` */
  readonly relayId?: string;
  /** Called for each delivery attempt's outcome. */
  readonly onOutcome?: (outcome: DeliveryOutcome) => void;
  /**
   * Called when the database cannot be reached (the relay keeps trying), the deliverer throws, or
   * a retention run fails (the next one tries again); `context` says which (`claim`, `deliver`,
   * `retention`, …).
   */
  readonly onError?: (error: unknown, context: string) => void;
}

/**
 * Counts of delivery outcomes recorded by one relay since it started (monotonic counters: a
 * metrics exporter reads them as `deliveries_total{outcome}`).
 */
export interface DeliveryCounts {
  readonly delivered: number;
  readonly retry: number;
  readonly dead: number;
  readonly superseded: number;
}

/** What a metrics exporter reads from a relay (see {@link OutboxRelay.stats}). */
export interface OutboxRelayStats {
  /** The outcomes this relay (in this process) recorded since it started. */
  readonly outcomes: DeliveryCounts;
  /** The backlog of each of this relay's destinations, shared by every relay: read from the database. */
  readonly destinations: readonly DestinationBacklog[];
  /**
   * The age (ms) of the oldest event still pending delivery to any of this relay's destinations,
   * or `null` when none is pending: the gauge to alert on (it grows while a receiver is down or no
   * relay runs). Dead deliveries are not pending: they are counted in `destinations[].dead`.
   */
  readonly oldestPendingAgeMs: number | null;
}

/** A running relay. */
export interface OutboxRelay {
  /** This relay's name, as `claimed_by` shows it. */
  readonly relayId: string;
  /** Looks for due deliveries now (as a notification would). */
  wake(): void;
  /**
   * The outcomes this relay recorded since it started (in memory, no query).
   *
   * @example
   * ```ts
   * const { delivered, retry, dead } = relay.counts();
   * ```
   */
  counts(): DeliveryCounts;
  /**
   * The outcomes this relay recorded, and the backlog of its destinations (one query): deliveries
   * by outcome, and the oldest undelivered event's age.
   *
   * @returns the stats; rejects when the database cannot be reached
   * @example
   * ```ts
   * const { outcomes, oldestPendingAgeMs, destinations } = await relay.stats();
   * metrics.gauge('webhook_oldest_pending_seconds', (oldestPendingAgeMs ?? 0) / 1000);
   * for (const [outcome, n] of Object.entries(outcomes)) metrics.counter('webhook_deliveries_total', n, { outcome });
   * ```
   */
  stats(): Promise<OutboxRelayStats>;
  /**
   * Stops claiming; waits for the batches being handed over (at most `abandonAfterMs`, then
   * aborts them and releases their claims); stops listening. Idempotent.
   */
  stop(options?: { readonly abandonAfterMs?: number }): Promise<void>;
}
