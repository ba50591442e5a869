// The outbox's retention, run by each relay on a schedule: what was delivered is deleted once
// older than the retention period, in small batches (migration 007's function, which says which
// rows go and how the relays share the work).
import { AUTOVACUUMED, PRUNE, VACUUM_OUTBOX } from './outbox-sql.js';
import { createWakeScheduler } from './relay-scheduler.js';
import type { SqlClient } from './sql-client.js';

/**
 * How long the outbox keeps what was delivered, and how a relay prunes it. Delivered deliveries
 * are deleted `periodMs` after their delivery; an event, `periodMs` after it was recorded once no
 * delivery of it is left (an event stored while no destination was registered has none). Dead
 * deliveries, the pending ones they hold back and their events stay until re-driven (then
 * delivered, then pruned) or purged.
 */
export interface OutboxRetention {
  /** How long delivered deliveries and their events are kept. @default 604_800_000 (7 days) */
  readonly periodMs?: number;
  /** How often the relay prunes. @default the period, at most 60_000 (1 min) */
  readonly intervalMs?: number;
  /** Deliveries, and events, deleted by one statement (its own short transaction). @default 500 */
  readonly batchSize?: number;
}

/** The defaults of {@link OutboxRetention} (the interval is the period, at most `maxIntervalMs`). */
export const RETENTION_DEFAULTS = {
  periodMs: 7 * 24 * 3_600_000,
  maxIntervalMs: 60_000,
  batchSize: 500,
} as const;

/** What one batch, or one run of batches, deleted. */
export interface Pruned {
  readonly deliveries: number;
  readonly events: number;
}

/** What one batch did: {@link Pruned}, and where its sweep of the old events got to. */
export interface PrunedBatch extends Pruned {
  /** The position the sweep got to (the next batch's start), or `null` when it did not sweep. */
  readonly sweptTo: string | null;
  /** The sweep reached the events younger than the period (or was not asked for). */
  readonly sweptAll: boolean;
  /** Another relay is pruning: this batch did nothing. */
  readonly skipped: boolean;
}

/**
 * One batch: at most `batchSize` delivered deliveries older than the period and their events
 * with no delivery left; and, from position `sweepFrom` (`'0'`: the oldest), the next `batchSize`
 * events, of which those older than the period with no delivery are deleted.
 */
export async function pruneOutboxBatch(
  client: SqlClient,
  periodMs: number,
  batchSize: number,
  sweepFrom: string | null,
): Promise<PrunedBatch> {
  const { rows } = await client.query(PRUNE, [periodMs, batchSize, sweepFrom]);
  const row = rows[0] as
    | {
        deliveries: number;
        events: number;
        swept_to: string | null;
        swept_all: boolean;
        skipped: boolean;
      }
    | undefined;
  return {
    deliveries: Number(row?.deliveries ?? 0),
    events: Number(row?.events ?? 0),
    sweptTo: row?.swept_to ?? null,
    sweptAll: row?.swept_all !== false,
    skipped: row?.skipped === true,
  };
}

/**
 * A run of the retention: batches until the delivered deliveries older than the period are gone
 * and the sweep has gone through the old events (or another relay is pruning), pausing after
 * each batch as long as it took, so that the retention takes at most about half of one
 * connection's time however much there is to delete (the first run after an upgrade deletes the
 * whole history). On a database without autovacuum (PGlite), the tables are vacuumed after a run
 * that deleted rows: their space is otherwise never reused. `stopped` ends the run between
 * batches.
 */
export async function pruneOutbox(
  client: SqlClient,
  options: { readonly periodMs: number; readonly batchSize: number; readonly vacuum: boolean },
  pause: (ms: number) => Promise<void>,
  stopped: () => boolean,
): Promise<Pruned> {
  let deliveries = 0;
  let events = 0;
  let sweepFrom: string | null = '0';
  while (!stopped()) {
    const started = performance.now();
    const batch = await pruneOutboxBatch(client, options.periodMs, options.batchSize, sweepFrom);
    deliveries += batch.deliveries;
    events += batch.events;
    sweepFrom = batch.sweptAll ? null : batch.sweptTo;
    if (batch.skipped || (batch.deliveries < options.batchSize && sweepFrom === null)) break;
    await pause(performance.now() - started);
  }
  if (options.vacuum && deliveries + events > 0 && !stopped()) {
    await client.query(VACUUM_OUTBOX);
  }
  return { deliveries, events };
}

/** A running schedule of retention runs. */
export interface RetentionSchedule {
  /** Ends the schedule; resolves once a run under way has finished its batch. */
  stop(): Promise<void>;
}

/**
 * Runs {@link pruneOutbox} every interval until stopped (the first run one interval after the
 * start). A run that fails is reported and the next one tries again.
 */
export function scheduleRetention(
  client: SqlClient,
  retention: OutboxRetention,
  report: (error: unknown) => void,
): RetentionSchedule {
  const periodMs = retention.periodMs ?? RETENTION_DEFAULTS.periodMs;
  const intervalMs = retention.intervalMs ?? Math.min(periodMs, RETENTION_DEFAULTS.maxIntervalMs);
  const batchSize = retention.batchSize ?? RETENTION_DEFAULTS.batchSize;
  const scheduler = createWakeScheduler();
  let vacuum: boolean | undefined;
  const run = (async () => {
    while (!scheduler.closed) {
      await scheduler.sleep(intervalMs);
      if (scheduler.closed) break;
      try {
        vacuum ??= !((await client.query(AUTOVACUUMED)).rows[0] as { running: boolean }).running;
        await pruneOutbox(
          client,
          { periodMs, batchSize, vacuum },
          (ms) => scheduler.sleep(ms),
          () => scheduler.closed,
        );
      } catch (error) {
        if (!scheduler.closed) report(error);
      }
    }
  })();
  return {
    async stop() {
      scheduler.close();
      await run;
    },
  };
}
