import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { type Claim, OutboxClaims } from './outbox-claims.js';
import { DeliveryHandOver, type ErrorReport, type HandedOver } from './outbox-hand-over.js';
import { OutcomeRecorder } from './outbox-outcomes.js';
import { type RetentionSchedule, scheduleRetention } from './outbox-retention.js';
import { RETRY_DEFAULTS } from './outbox-retry.js';
import type {
  DeliveryCounts,
  OutboxRelay,
  OutboxRelayOptions,
  OutboxRelayStats,
} from './outbox-types.js';
import { RelayWakeups } from './relay-wakeups.js';

/**
 * A relay of the outbox (see {@link createOutboxRelay}): its loops claim deliveries, hand them
 * over and record their outcomes, each part a class of its own; this one starts and stops them.
 */
class PostgresOutboxRelay implements OutboxRelay {
  readonly relayId: string;
  readonly #options: OutboxRelayOptions;
  readonly #pollIntervalMs: number;
  readonly #report: ErrorReport;
  readonly #wakeups: RelayWakeups;
  readonly #claims: OutboxClaims;
  readonly #handOver: DeliveryHandOver;
  readonly #outcomes: OutcomeRecorder;
  #retention: RetentionSchedule | undefined;
  #loops: Promise<void>[] = [];
  #stopping: Promise<void> | undefined;

  constructor(options: OutboxRelayOptions) {
    const { client } = options;
    this.#options = options;
    this.relayId = options.relayId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.#pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.#report = (error, context) => options.onError?.(error, context);
    this.#wakeups = new RelayWakeups(client, this.#report);
    this.#claims = new OutboxClaims({
      client,
      relayId: this.relayId,
      destinations: options.destinations,
      batchSize: options.batchSize ?? 50,
      leaseMs: options.leaseMs ?? 30_000,
    });
    this.#handOver = new DeliveryHandOver(options.deliver, this.#report);
    this.#outcomes = new OutcomeRecorder({
      client,
      policy: { ...RETRY_DEFAULTS, ...options.retry },
      onOutcome: options.onOutcome,
      report: this.#report,
    });
  }

  /** Registers the destinations, listens, and starts the loops and the retention. */
  async start(): Promise<void> {
    const options = this.#options;
    await this.#claims.register();
    if (options.listen ?? true) await this.#wakeups.listen(this.#pollIntervalMs);
    if (options.retention !== false) {
      this.#retention = scheduleRetention(options.client, options.retention ?? {}, (error) =>
        this.#report(error, 'retention'),
      );
    }
    this.#loops = Array.from({ length: Math.max(1, options.concurrency ?? 1) }, () =>
      this.#loop().catch((error) => this.#report(error, 'relay loop')),
    );
  }

  /** Looks for due deliveries now. */
  wake(): void {
    this.#wakeups.wake();
  }

  /** The outcomes recorded since start. */
  counts(): DeliveryCounts {
    return this.#outcomes.counts();
  }

  /** The outcomes recorded since start, and the backlog of this relay's destinations. */
  async stats(): Promise<OutboxRelayStats> {
    const outcomes = this.counts();
    const backlog = await this.#claims.backlog();
    const ages = backlog.flatMap((each) =>
      each.oldestPendingAgeMs === null ? [] : [each.oldestPendingAgeMs],
    );
    return {
      outcomes,
      destinations: backlog,
      oldestPendingAgeMs: ages.length === 0 ? null : Math.max(...ages),
    };
  }

  /** Stops the loops, the retention and the listener; idempotent. */
  stop(options?: { readonly abandonAfterMs?: number }): Promise<void> {
    this.#stopping ??= this.#stop(options?.abandonAfterMs ?? 10_000);
    return this.#stopping;
  }

  async #stop(abandonAfterMs: number): Promise<void> {
    this.#wakeups.close();
    const retained = this.#retention?.stop();
    await this.#loopsEnded(abandonAfterMs);
    await this.#outcomes.recordKept().catch(() => false);
    await retained;
    await this.#wakeups.unlisten();
  }

  /** Waits for the loops; past `abandonAfterMs`, aborts the batches being handed over. */
  async #loopsEnded(abandonAfterMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.#loops),
      new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          this.#handOver.abort(new Error('the relay is stopping'));
          resolve();
        }, abandonAfterMs);
      }),
    ]);
    if (timer !== undefined) clearTimeout(timer);
    await Promise.all(this.#loops);
  }

  /** A loop: claims due deliveries, hands them over, records their outcomes, until stopped. */
  async #loop(): Promise<void> {
    const wakeups = this.#wakeups;
    while (!wakeups.closed) {
      if (!(await this.#outcomes.recordKept())) {
        // The database is unreachable: a notification from before must not make this a busy loop.
        await wakeups.sleepAfterFailure(this.#pollIntervalMs);
        continue;
      }
      wakeups.claiming();
      const claim = await this.#claim();
      if (claim === undefined) {
        await wakeups.sleepAfterFailure(this.#pollIntervalMs);
        continue;
      }
      // Claims again at once only when there may be more; otherwise it sleeps until a
      // notification that came meanwhile (kept), a later one, or the poll.
      if (claim.deliveries.length === 0 || !(await this.#deliver(claim))) {
        await wakeups.sleep(this.#pollIntervalMs);
      }
    }
  }

  /** A claim; none when the database cannot be reached. */
  async #claim(): Promise<Claim | undefined> {
    try {
      return await this.#claims.claim();
    } catch (error) {
      if (!this.#wakeups.closed) this.#report(error, 'claim');
      return undefined;
    }
  }

  /**
   * Hands a claim over and records its outcomes; whether there may be more at once: the claim was
   * full, or a delivery let a later event of its subject go (which no notification announces).
   */
  async #deliver(claim: Claim): Promise<boolean> {
    const full = this.#claims.isFull(claim);
    if (full) this.#wakeups.moreMayBeDue();
    const handedOver = await this.#handOver.handOver(claim);
    if (this.#handOver.aborted) {
      await this.#abandon(handedOver);
      return false;
    }
    try {
      return (await this.#outcomes.record(handedOver)) || full;
    } catch (error) {
      this.#report(error, 'record outcomes');
      this.#outcomes.keep(handedOver);
      return full;
    }
  }

  /**
   * A claim abandoned at stop: what was delivered is recorded; the rest is given back (due again
   * at once, for any relay) rather than counted as a failed attempt.
   */
  async #abandon(handedOver: HandedOver): Promise<void> {
    const { deliveries, results } = handedOver;
    const delivered = deliveries.flatMap((delivery, i) =>
      results[i]?.outcome === 'delivered' ? [{ delivery, result: results[i] }] : [],
    );
    await this.#outcomes
      .record({
        ...handedOver,
        deliveries: delivered.map((each) => each.delivery),
        results: delivered.map((each) => each.result),
      })
      .then(() => this.#claims.release(handedOver.claimId))
      .catch((error) => this.#report(error, 'release'));
  }
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
