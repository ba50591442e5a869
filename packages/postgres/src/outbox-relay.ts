import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RecordedEvent } from '@workforce-kit/core';
import { canListen, listenForNotifications, type NotificationListener } from './notifications.js';
import { outboxBacklog, registerOutboxDestinations } from './outbox-admin.js';
import { type RetentionSchedule, scheduleRetention } from './outbox-retention.js';
import { RETRY_DEFAULTS, type RetryPolicy, retryDelayMs } from './outbox-retry.js';
import { OUTBOX_CHANNEL } from './outbox-schema.js';
import { CLAIM, type ClaimRow, type OutcomeRow, RECORD_OUTCOMES, RELEASE } from './outbox-sql.js';
import type {
  DeliveryCounts,
  DeliveryOutcome,
  DeliveryResult,
  OutboxDelivery,
  OutboxRelay,
  OutboxRelayOptions,
  OutboxRelayStats,
} from './outbox-types.js';
import { createWakeScheduler } from './relay-scheduler.js';
import type { SqlClient } from './sql-client.js';
import { json } from './store-records.js';

/** The payload of a busy relay's request for help (a change's notification has none). */
const HELP = 'help';

/** The advisory lock that elects the relay woken by changes' notifications (see `lead`). */
const LEAD_LOCK_KEY = 7438291003n;

/** A claim's outcomes not yet recorded (the database was unreachable): recorded before the next claim. */
interface UnrecordedOutcomes {
  readonly claimId: string;
  readonly deliveries: readonly OutboxDelivery[];
  readonly results: readonly DeliveryResult[];
  readonly durationMs: number;
}

/** A claim of due deliveries, made under one id. */
interface Claimed {
  readonly claimId: string;
  readonly deliveries: OutboxDelivery[];
}

/**
 * A relay of the outbox (see {@link createOutboxRelay}): its loops claim, hand over and record
 * deliveries; its listener wakes them.
 */
class PostgresOutboxRelay implements OutboxRelay {
  readonly relayId: string;
  readonly #options: OutboxRelayOptions;
  readonly #client: SqlClient;
  readonly #destinations: readonly string[];
  readonly #batchSize: number;
  readonly #leaseMs: number;
  readonly #pollIntervalMs: number;
  readonly #policy: Required<RetryPolicy>;
  readonly #counts = { delivered: 0, retry: 0, dead: 0, superseded: 0 };
  readonly #scheduler = createWakeScheduler();
  readonly #abort = new AbortController();
  /** Outcomes the database could not take yet: recorded before the next claim. */
  #unrecorded: UnrecordedOutcomes[] = [];
  #listener: NotificationListener | undefined;
  /** Set when this relay asked the others for help; cleared when one of its loops claims. */
  #helpAsked = false;
  #retention: RetentionSchedule | undefined;
  #loops: Promise<void>[] = [];
  #stopping: Promise<void> | undefined;

  constructor(options: OutboxRelayOptions) {
    this.#options = options;
    this.#client = options.client;
    this.#destinations = [...new Set(options.destinations)];
    this.#batchSize = options.batchSize ?? 50;
    this.#leaseMs = options.leaseMs ?? 30_000;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#policy = { ...RETRY_DEFAULTS, ...options.retry };
    this.relayId = options.relayId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  }

  /** Registers the destinations, listens, and starts the loops and the retention. */
  async start(): Promise<void> {
    const options = this.#options;
    await registerOutboxDestinations(this.#client, this.#destinations);
    if ((options.listen ?? true) && canListen(this.#client)) {
      this.#listener = await listenForNotifications(
        this.#client,
        OUTBOX_CHANNEL,
        {
          onNotify: (payload) => this.#onNotify(payload),
          onError: (error) => this.#report(error, 'listen'),
        },
        { lead: { key: LEAD_LOCK_KEY, retryMs: this.#pollIntervalMs } },
      );
    }
    if (options.retention !== false) {
      this.#retention = scheduleRetention(this.#client, options.retention ?? {}, (error) =>
        this.#report(error, 'retention'),
      );
    }
    this.#loops = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, () =>
      this.#loop().catch((error) => this.#report(error, 'relay loop')),
    );
  }

  wake(): void {
    this.#scheduler.wake();
  }

  counts(): DeliveryCounts {
    return { ...this.#counts };
  }

  async stats(): Promise<OutboxRelayStats> {
    const outcomes = this.counts();
    const backlog = (await outboxBacklog(this.#client)).filter((each) =>
      this.#destinations.includes(each.destination),
    );
    const ages = backlog.flatMap((each) =>
      each.oldestPendingAgeMs === null ? [] : [each.oldestPendingAgeMs],
    );
    return {
      outcomes,
      destinations: backlog,
      oldestPendingAgeMs: ages.length === 0 ? null : Math.max(...ages),
    };
  }

  stop(options?: { readonly abandonAfterMs?: number }): Promise<void> {
    this.#stopping ??= this.#stop(options?.abandonAfterMs ?? 10_000);
    return this.#stopping;
  }

  async #stop(abandonAfterMs: number): Promise<void> {
    this.#scheduler.close();
    const retained = this.#retention?.stop();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.#loops),
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.#abort.abort(new Error('the relay is stopping'));
          resolve();
        }, abandonAfterMs);
      }),
    ]);
    if (timer !== undefined) clearTimeout(timer);
    await Promise.all(this.#loops);
    await this.#recordUnrecorded().catch(() => false);
    await retained;
    await this.#listener?.close().catch((error) => this.#report(error, 'unlisten'));
  }

  #report(error: unknown, context: string): void {
    this.#options.onError?.(error, context);
  }

  /** All this relay's loops are busy: the other relays' sleeping loops are woken (once a claim). */
  #askForHelp(): void {
    if (this.#helpAsked || this.#scheduler.closed) return;
    this.#helpAsked = true;
    this.#client
      .query('SELECT pg_notify($1, $2)', [OUTBOX_CHANNEL, HELP])
      .catch((error) => this.#report(error, 'notify'));
  }

  /**
   * A change's notification (or a re-drive's) wakes the leading relay only (one claim finds what
   * one change queued); it asks the others for help when its loops are all busy. A request for
   * help, or a listener that reconnected (notifications may have been missed), wakes any relay.
   */
  #onNotify(payload: string | null): void {
    const scheduler = this.#scheduler;
    if (payload === HELP || payload === null) {
      scheduler.wake();
      return;
    }
    if (!(this.#listener?.leading ?? true)) return;
    if (scheduler.sleeping === 0) this.#askForHelp();
    scheduler.wake();
  }

  async #claim(): Promise<Claimed> {
    const claimId = randomUUID();
    const { rows } = await this.#client.query(CLAIM, [
      this.#destinations,
      this.#batchSize,
      claimId,
      this.relayId,
      this.#leaseMs,
    ]);
    return { claimId, deliveries: (rows as ClaimRow[]).map(deliveryOf) };
  }

  /** The deliverer's results, one per delivery: a throw, or a missing result, is a retry. */
  async #handOver(deliveries: readonly OutboxDelivery[]): Promise<readonly DeliveryResult[]> {
    try {
      const results = await this.#options.deliver(deliveries, this.#abort.signal);
      return deliveries.map((_, i) => {
        const result = results[i];
        return result?.outcome === 'delivered' || result?.outcome === 'retry'
          ? result
          : { outcome: 'retry', error: 'the deliverer reported no outcome' };
      });
    } catch (error) {
      this.#report(error, 'deliver');
      const message = error instanceof Error ? error.message : String(error);
      return deliveries.map(() => ({ outcome: 'retry', error: `deliverer failed: ${message}` }));
    }
  }

  /** Records a claim's outcomes; whether a delivery let a later event of its subject go. */
  async #record(batch: UnrecordedOutcomes): Promise<boolean> {
    const { deliveries, results } = batch;
    const policy = this.#policy;
    const { rows } = await this.#client.query(RECORD_OUTCOMES, [
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
      this.#counts[outcome] += 1;
      const error = retryOf(results[i] as DeliveryResult)?.error;
      this.#options.onOutcome?.({
        delivery,
        outcome,
        durationMs: batch.durationMs,
        ...(error === undefined ? {} : { error }),
      });
    });
    return recorded.some((row) => row.unblocks);
  }

  /** Records what earlier claims could not; false while the database is still unreachable. */
  async #recordUnrecorded(): Promise<boolean> {
    for (let first = this.#unrecorded[0]; first !== undefined; first = this.#unrecorded[0]) {
      try {
        await this.#record(first);
      } catch (error) {
        this.#report(error, 'record outcomes');
        return false;
      }
      this.#unrecorded = this.#unrecorded.slice(1);
    }
    return true;
  }

  /** A loop: claims due deliveries, hands them over, records their outcomes, until stopped. */
  async #loop(): Promise<void> {
    const scheduler = this.#scheduler;
    while (!scheduler.closed) {
      if (!(await this.#recordUnrecorded())) {
        // The database is unreachable: a notification from before must not make this a busy loop.
        await this.#sleepAfterFailure();
        continue;
      }
      scheduler.clear();
      this.#helpAsked = false;
      let claimed: Claimed;
      try {
        claimed = await this.#claim();
      } catch (error) {
        if (!scheduler.closed) this.#report(error, 'claim');
        await this.#sleepAfterFailure();
        continue;
      }
      if (claimed.deliveries.length === 0) {
        await scheduler.sleep(this.#pollIntervalMs);
        continue;
      }
      const more = await this.#deliver(claimed);
      // Claims again at once only when there may be more; otherwise it sleeps until a
      // notification that came meanwhile (kept), a later one, or the poll.
      if (!more) await scheduler.sleep(this.#pollIntervalMs);
    }
  }

  async #sleepAfterFailure(): Promise<void> {
    this.#scheduler.clear();
    await this.#scheduler.sleep(this.#pollIntervalMs);
  }

  /**
   * Hands a claim over and records its outcomes; whether there may be more at once: the claim was
   * full, or a delivery let a later event of its subject go (which no notification announces).
   */
  async #deliver({ claimId, deliveries }: Claimed): Promise<boolean> {
    // A full claim may have left more: another loop of this relay looks too, or another relay.
    const full = deliveries.length >= this.#batchSize;
    if (full && this.#scheduler.sleeping > 0) this.#scheduler.wake();
    else if (full) this.#askForHelp();
    const started = performance.now();
    const results = await this.#handOver(deliveries);
    const batch = { claimId, deliveries, results, durationMs: performance.now() - started };
    if (this.#abort.signal.aborted) {
      await this.#abandon(batch);
      return false;
    }
    try {
      return (await this.#record(batch)) || full;
    } catch (error) {
      this.#report(error, 'record outcomes');
      // Recorded later, before the next claim, where the claim is still this relay's (no other
      // took it over after the lease ran out), sparing the receiver duplicates; bounded so that a
      // long outage holds little memory.
      this.#unrecorded = [...this.#unrecorded, batch].slice(-100);
      return full;
    }
  }

  /**
   * A claim abandoned at stop: what was delivered is recorded; the rest is given back (due again
   * at once, for any relay) rather than counted as a failed attempt.
   */
  async #abandon(batch: UnrecordedOutcomes): Promise<void> {
    const { deliveries, results } = batch;
    const delivered = deliveries.flatMap((delivery, i) =>
      results[i]?.outcome === 'delivered' ? [{ delivery, result: results[i] }] : [],
    );
    await this.#record({
      ...batch,
      deliveries: delivered.map((each) => each.delivery),
      results: delivered.map((each) => each.result),
    })
      .then(() => this.#client.query(RELEASE, [batch.claimId]))
      .catch((error) => this.#report(error, 'release'));
  }
}

const retryOf = (result: DeliveryResult) => (result.outcome === 'retry' ? result : undefined);

/** A claimed row as the deliverer is handed it. */
function deliveryOf(row: ClaimRow): OutboxDelivery {
  return {
    destination: row.destination,
    position: Number(row.position),
    event: json<RecordedEvent>(row.payload),
    record: json<Record<string, unknown> | null>(row.record) ?? null,
    attempt: Number(row.attempts),
    recordedAt: Number(row.recorded_at_ms),
  };
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
 *   later event of its subject go; otherwise it sleeps until woken.
 * - **Retention**: delivered deliveries, and events with no delivery left, are deleted once older
 *   than `retention.periodMs` (7 days), in batches, every minute (one relay at a time); dead
 *   deliveries and their events stay until re-driven or purged ({@link OutboxRetention}). The
 *   store's `events.list()` then lists the events the outbox still holds.
 *
 * @param options - the database, the destinations, the deliverer, and how often and how much to
 *   claim
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
  const relay = new PostgresOutboxRelay(options);
  await relay.start();
  return relay;
}
