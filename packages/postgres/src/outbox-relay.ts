import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RecordedEvent } from '@workforce-kit/core';
import { canListen, listenForNotifications, type NotificationListener } from './notifications.js';
import { outboxBacklog, registerOutboxDestinations } from './outbox-admin.js';
import { scheduleRetention } from './outbox-retention.js';
import { RETRY_DEFAULTS, retryDelayMs } from './outbox-retry.js';
import { OUTBOX_CHANNEL } from './outbox-schema.js';
import { CLAIM, type ClaimRow, type OutcomeRow, RECORD_OUTCOMES, RELEASE } from './outbox-sql.js';
import type {
  DeliveryOutcome,
  DeliveryResult,
  OutboxDelivery,
  OutboxRelay,
  OutboxRelayOptions,
} from './outbox-types.js';
import { createWakeScheduler } from './relay-scheduler.js';

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
