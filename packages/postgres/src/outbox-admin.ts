// What an operator does to the outbox besides running relays (the server's `webhooks` command):
// register and retire destinations, re-drive or purge dead letters, read the backlog.
import {
  BACKLOG,
  PURGE_DEAD,
  REDRIVE,
  REGISTER_DESTINATIONS,
  RETIRE_DESTINATION,
} from './outbox-sql.js';
import type { SqlClient } from './sql-client.js';

/** The backlog of one destination (see {@link outboxBacklog}). */
export interface DestinationBacklog {
  readonly destination: string;
  /** Deliveries waiting (due, backing off, held behind an earlier event of their subject, or claimed). */
  readonly pending: number;
  /** Deliveries in the dead-letter state. */
  readonly dead: number;
  /** Age of the oldest pending delivery's event (ms), or `null` when none is pending. */
  readonly oldestPendingAgeMs: number | null;
}

const countOf = (rows: unknown[]) => Number((rows[0] as { n: number } | undefined)?.n ?? 0);

/**
 * Registers destinations (an upsert): from now on every change queues a delivery of its event to
 * each. Events stored before are not delivered to a new destination.
 *
 * @example
 * ```ts
 * await registerOutboxDestinations(pool, ['https://hooks.example.com/workforce']);
 * ```
 */
export async function registerOutboxDestinations(
  client: SqlClient,
  destinations: readonly string[],
): Promise<void> {
  if (destinations.length === 0) return;
  await client.query(REGISTER_DESTINATIONS, [[...destinations]]);
}

/**
 * Retires a destination: no change queues deliveries to it any more, and its deliveries (pending,
 * dead and delivered) are deleted. Remove it from every relay's destinations first: a relay that
 * starts with it registers it again.
 *
 * @returns the number of deliveries deleted with it
 * @example
 * ```ts
 * await retireOutboxDestination(pool, 'https://old.example.com/hook');
 * ```
 */
export async function retireOutboxDestination(
  client: SqlClient,
  destination: string,
): Promise<number> {
  const { rows } = await client.query(RETIRE_DESTINATION, [destination]);
  return countOf(rows);
}

/** Which dead deliveries {@link redriveOutboxDeliveries} puts back, or {@link purgeDeadOutboxDeliveries} deletes. */
export interface RedriveFilter {
  /** Only this destination's. */
  readonly destination?: string;
  /** Only these events'. */
  readonly eventIds?: readonly string[];
}

/**
 * Re-drives dead deliveries: back to pending, due now, with their attempts counted from zero (the
 * last error is kept until the next attempt). Relays are notified. The event, its id and its body
 * are the same as on the first attempt.
 *
 * @returns the number of deliveries re-driven
 * @example
 * ```ts
 * // the receiver is fixed: deliver everything it missed
 * await redriveOutboxDeliveries(pool, { destination: 'https://hooks.example.com/workforce' });
 * ```
 */
export async function redriveOutboxDeliveries(
  client: SqlClient,
  filter: RedriveFilter = {},
): Promise<number> {
  const { rows } = await client.query(REDRIVE, [
    filter.destination ?? null,
    filter.eventIds === undefined ? null : [...filter.eventIds],
  ]);
  return countOf(rows);
}

/**
 * Purges dead deliveries: they are deleted, never to be delivered, and the later events of their
 * subjects, which they held back, can go; relays are notified. Their events are deleted by the
 * relays' retention once no delivery of theirs is left and they are older than its period.
 *
 * @returns the number of dead deliveries deleted
 * @example
 * ```ts
 * // give up on what a receiver missed while it was broken
 * await purgeDeadOutboxDeliveries(pool, { destination: 'https://hooks.example.com/workforce' });
 * ```
 */
export async function purgeDeadOutboxDeliveries(
  client: SqlClient,
  filter: RedriveFilter = {},
): Promise<number> {
  const { rows } = await client.query(PURGE_DEAD, [
    filter.destination ?? null,
    filter.eventIds === undefined ? null : [...filter.eventIds],
  ]);
  return countOf(rows);
}

/**
 * The backlog of each registered destination: pending and dead deliveries, and the age of the
 * oldest pending one (the metric to alert on: it grows while a receiver is down or a relay is
 * missing).
 *
 * @example
 * ```ts
 * for (const { destination, pending, dead } of await outboxBacklog(pool)) {
 *   console.log(`${destination}: ${pending} pending, ${dead} dead`);
 * }
 * ```
 */
export async function outboxBacklog(client: SqlClient): Promise<DestinationBacklog[]> {
  const { rows } = await client.query(BACKLOG);
  return (
    rows as { destination: string; pending: number; dead: number; oldest: number | null }[]
  ).map((row) => ({
    destination: row.destination,
    pending: Number(row.pending),
    dead: Number(row.dead),
    oldestPendingAgeMs: row.oldest === null ? null : Math.max(0, Math.round(Number(row.oldest))),
  }));
}
