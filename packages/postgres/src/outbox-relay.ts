import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RecordedEvent } from '@workforce-kit/core';
import { canListen, listenForNotifications, type NotificationListener } from './notifications.js';
import {
  type DestinationBacklog,
  outboxBacklog,
  registerOutboxDestinations,
} from './outbox-admin.js';
import { type OutboxRetention, scheduleRetention } from './outbox-retention.js';
import { RETRY_DEFAULTS, type RetryPolicy, retryDelayMs } from './outbox-retry.js';
import { OUTBOX_CHANNEL } from './outbox-schema.js';
import { CLAIM, type ClaimRow, type OutcomeRow, RECORD_OUTCOMES, RELEASE } from './outbox-sql.js';
import { createWakeScheduler } from './relay-scheduler.js';
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
  /** Called when the database cannot be reached (the relay keeps trying) or the deliverer throws. */
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

/** The payload of a busy relay's request for help (a change's notification has none). */
const HELP = 'help';

/** The advisory lock that elects the relay woken by changes' notifications (see `lead`). */
const LEAD_LOCK_KEY = 7438291003n;

const json = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);

/** A claim's outcomes not yet recorded (the database was unreachable): recorded before the next claim. */
interface UnrecordedOutcomes {
  readonly claimId: string;
  readonly deliveries: readonly OutboxDelivery[];
  readonly results: readonly DeliveryResult[];
  readonly durationMs: number;
}

/**
 * Starts a relay of the outbox: it registers its destinations, then claims due deliveries in
 * batches, hands them to `deliver`, and records each outcome. Any number of relays, in any number
 * of processes, share the work: a claim takes rows with `FOR UPDATE SKIP LOCKED` and holds them
 * under a lease, so no delivery is handed to two relays at once, and a killed relay's claims come
 * back when their lease runs out.
 *
 * - **At least once**: a delivery is marked delivered only after `deliver` says so; anything else
 *   (a retry, a throw, a crash, a lost database) leaves it pending, to be handed over again.
 * - **Per-subject order**: a delivery is claimed only when every earlier event of its subject
 *   (employee, shift) was delivered to that destination; a dead one holds its subject's later
 *   events back until it is re-driven.
 * - **Retries** per delivery with {@link retryDelayMs}'s backoff; past `maxAttempts` or `maxAgeMs`
 *   a delivery is dead ({@link redriveOutboxDeliveries} puts it back).
 * - **Wakes** on the write statement's `NOTIFY` (a held connection of a `pg.Pool`, or PGlite's
 *   `listen`), and polls every `pollIntervalMs` besides (retries come due so). Of several relays,
 *   a change's notification wakes one: the relay that leads, elected by an advisory lock on its
 *   listening connection (another takes the lead within `pollIntervalMs` when it goes); when its
 *   loops are all busy, it asks the others to look too (a notification, at most once per claim
 *   of its own). A loop claims again at once after a full claim, or after a delivery that let a
 *   later event of its subject go; otherwise it sleeps until woken. (Every relay claimed on
 *   every change before, all but one finding nothing: `pnpm --filter @workforce-kit/bench run
 *   wakeups`.)
 * - **Retention**: delivered deliveries, and events with no delivery left, are deleted once older
 *   than `retention.periodMs` (7 days), in batches, every minute (one relay at a time); dead
 *   deliveries and their events stay until re-driven or purged ({@link OutboxRetention}). The
 *   store's `events.list()` then lists the events the outbox still holds.
 *
 * @returns the relay, once its destinations are registered and it listens
 * @example
 * ```ts
 * const relay = await createOutboxRelay({
 *   client: pool,
 *   destinations: ['https://hooks.example.com/workforce'],
 *   deliver: async (batch) =>
 *     Promise.all(batch.map(async (d) => ((await send(d)) ? { outcome: 'delivered' } : { outcome: 'retry', error: 'HTTP 503' }))),
 * });
 * // at shutdown, before the store closes:
 * await relay.stop();
 * ```
 */
export async function createOutboxRelay(options: OutboxRelayOptions): Promise<OutboxRelay> {
  const { client, deliver } = options;
  const destinations = [...new Set(options.destinations)];
  const batchSize = options.batchSize ?? 50;
  const leaseMs = options.leaseMs ?? 30_000;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const policy = { ...RETRY_DEFAULTS, ...options.retry };
  const relayId = options.relayId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const report = options.onError ?? (() => {});
  const counts = { delivered: 0, retry: 0, dead: 0, superseded: 0 };

  await registerOutboxDestinations(client, destinations);

  const scheduler = createWakeScheduler();
  const abort = new AbortController();
  let unrecorded: UnrecordedOutcomes[] = [];

  let listener: NotificationListener | undefined;
  /** Set when this relay asked the others for help; cleared when one of its loops claims. */
  let helpAsked = false;

  /** All this relay's loops are busy: the other relays' sleeping loops are woken (once a claim). */
  function askForHelp(): void {
    if (helpAsked || scheduler.closed) return;
    helpAsked = true;
    client
      .query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, HELP])
      .catch((error) => report(error, 'notify'));
  }

  /**
   * A change's notification (or a re-drive's) wakes the leading relay only (one claim finds what
   * one change queued, where every relay's claim did, all but one finding nothing); it asks the
   * others for help when its loops are all busy. A request for help, or a listener that
   * reconnected (notifications may have been missed), wakes any relay.
   */
  function onNotify(payload: string | null): void {
    if (payload === HELP || payload === null) {
      scheduler.wake();
      return;
    }
    if (!(listener?.leading ?? true)) return;
    if (scheduler.sleeping === 0) askForHelp();
    scheduler.wake();
  }

  if ((options.listen ?? true) && canListen(client)) {
    listener = await listenForNotifications(
      client,
      OUTBOX_CHANNEL,
      { onNotify, onError: (error) => report(error, 'listen') },
      { lead: { key: LEAD_LOCK_KEY, retryMs: pollIntervalMs } },
    );
  }

  async function claim(): Promise<{ claimId: string; deliveries: OutboxDelivery[] }> {
    const claimId = randomUUID();
    const { rows } = await client.query(CLAIM, [
      destinations,
      batchSize,
      claimId,
      relayId,
      leaseMs,
    ]);
    return {
      claimId,
      deliveries: (rows as ClaimRow[]).map((row) => ({
        destination: row.destination,
        position: Number(row.position),
        event: json(row.payload) as RecordedEvent,
        record: (json(row.record) ?? null) as Record<string, unknown> | null,
        attempt: Number(row.attempts),
        recordedAt: Number(row.recorded_at_ms),
      })),
    };
  }

  async function handOver(
    deliveries: readonly OutboxDelivery[],
  ): Promise<readonly DeliveryResult[]> {
    try {
      const results = await deliver(deliveries, abort.signal);
      return deliveries.map((_, i) => {
        const result = results[i];
        return result?.outcome === 'delivered' || result?.outcome === 'retry'
          ? result
          : { outcome: 'retry', error: 'the deliverer reported no outcome' };
      });
    } catch (error) {
      report(error, 'deliver');
      const message = error instanceof Error ? error.message : String(error);
      return deliveries.map(() => ({ outcome: 'retry', error: `deliverer failed: ${message}` }));
    }
  }

  /** Records a claim's outcomes; whether a delivery let a later event of its subject go. */
  async function record(batch: UnrecordedOutcomes): Promise<boolean> {
    const { deliveries, results } = batch;
    const retryOf = (r: DeliveryResult) => (r.outcome === 'retry' ? r : undefined);
    const { rows } = await client.query(RECORD_OUTCOMES, [
      deliveries.map((d) => d.destination),
      deliveries.map((d) => String(d.position)),
      results.map((r) => r.outcome),
      results.map((r) => retryOf(r)?.error.slice(0, 2000) ?? null),
      deliveries.map((d) => retryDelayMs(d.attempt, policy)),
      policy.maxAttempts,
      policy.maxAgeMs,
      batch.claimId,
    ]);
    const recorded = rows as OutcomeRow[];
    const states = new Map(
      recorded.map((row) => [`${row.destination} ${row.position}`, row.state]),
    );
    deliveries.forEach((delivery, i) => {
      const state = states.get(`${delivery.destination} ${delivery.position}`);
      const outcome: DeliveryOutcome['outcome'] =
        state === undefined ? 'superseded' : state === 'pending' ? 'retry' : state;
      counts[outcome] += 1;
      const error = retryOf(results[i] as DeliveryResult)?.error;
      options.onOutcome?.({
        delivery,
        outcome,
        durationMs: batch.durationMs,
        ...(error === undefined ? {} : { error }),
      });
    });
    return recorded.some((row) => row.unblocks);
  }

  /** Records what earlier claims could not; false while the database is still unreachable. */
  async function recordUnrecorded(): Promise<boolean> {
    while (unrecorded.length > 0) {
      const [first] = unrecorded;
      if (first === undefined) break;
      try {
        await record(first);
      } catch (error) {
        report(error, 'record outcomes');
        return false;
      }
      unrecorded = unrecorded.slice(1);
    }
    return true;
  }

  async function loop(): Promise<void> {
    while (!scheduler.closed) {
      if (!(await recordUnrecorded())) {
        // The database is unreachable: a notification from before must not make this a busy loop.
        scheduler.clear();
        await scheduler.sleep(pollIntervalMs);
        continue;
      }
      scheduler.clear();
      helpAsked = false;
      let claimed: Awaited<ReturnType<typeof claim>>;
      try {
        claimed = await claim();
      } catch (error) {
        if (!scheduler.closed) report(error, 'claim');
        scheduler.clear();
        await scheduler.sleep(pollIntervalMs);
        continue;
      }
      const { claimId, deliveries } = claimed;
      if (deliveries.length === 0) {
        await scheduler.sleep(pollIntervalMs);
        continue;
      }
      // A full claim may have left more: another loop of this relay looks too, or another relay.
      const full = deliveries.length >= batchSize;
      if (full && scheduler.sleeping > 0) scheduler.wake();
      else if (full) askForHelp();
      const started = performance.now();
      const results = await handOver(deliveries);
      const batch: UnrecordedOutcomes = {
        claimId,
        deliveries,
        results,
        durationMs: performance.now() - started,
      };
      if (abort.signal.aborted) {
        // Abandoned at stop: what was delivered is recorded; the rest of the claim is given back
        // (due again at once, for any relay) rather than counted as a failed attempt.
        const delivered = deliveries.flatMap((delivery, i) =>
          results[i]?.outcome === 'delivered' ? [{ delivery, result: results[i] }] : [],
        );
        await record({
          ...batch,
          deliveries: delivered.map((each) => each.delivery),
          results: delivered.map((each) => each.result),
        })
          .then(() => client.query(RELEASE, [claimId]))
          .catch((error) => report(error, 'release'));
        return;
      }
      let unblocked = false;
      try {
        unblocked = await record(batch);
      } catch (error) {
        report(error, 'record outcomes');
        // Kept to record later, before the next claim: applied then only where the claim is still
        // this relay's (no other relay took the deliveries over after the lease ran out), which
        // spares the receiver duplicates. The bound keeps a long outage from holding memory.
        unrecorded = [...unrecorded, batch].slice(-100);
      }
      // Claims again at once only when there may be more: the claim was full, or a delivery let
      // a later event of its subject go (which no notification announces). Otherwise it sleeps
      // until a notification that came meanwhile (kept), a later one, or the poll.
      if (!full && !unblocked) await scheduler.sleep(pollIntervalMs);
    }
  }

  const retention =
    options.retention === false
      ? undefined
      : scheduleRetention(client, options.retention ?? {}, (error) => report(error, 'retention'));

  const loops = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, () =>
    loop().catch((error) => report(error, 'relay loop')),
  );

  let stopping: Promise<void> | undefined;
  return {
    relayId,
    wake: scheduler.wake,
    counts: () => ({ ...counts }),
    async stats() {
      const outcomes = { ...counts };
      const backlog = (await outboxBacklog(client)).filter((each) =>
        destinations.includes(each.destination),
      );
      const ages = backlog.flatMap((each) =>
        each.oldestPendingAgeMs === null ? [] : [each.oldestPendingAgeMs],
      );
      return {
        outcomes,
        destinations: backlog,
        oldestPendingAgeMs: ages.length === 0 ? null : Math.max(...ages),
      };
    },
    stop(stopOptions) {
      stopping ??= (async () => {
        scheduler.close();
        const retained = retention?.stop();
        const abandonAfterMs = stopOptions?.abandonAfterMs ?? 10_000;
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all(loops),
          new Promise<void>((resolve) => {
            timer = setTimeout(() => {
              abort.abort(new Error('the relay is stopping'));
              resolve();
            }, abandonAfterMs);
          }),
        ]);
        if (timer !== undefined) clearTimeout(timer);
        await Promise.all(loops);
        await recordUnrecorded().catch(() => false);
        await retained;
        await listener?.close().catch((error) => report(error, 'unlisten'));
      })();
      return stopping;
    },
  };
}
