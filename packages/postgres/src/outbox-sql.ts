// The statements the outbox relay and its admin functions send, each one statement (the store's
// SqlClient runs one at a time, so each is atomic on its own). The tables are migration 003's.
import { OUTBOX_CHANNEL } from './outbox-schema.js';

/** A claimed delivery as {@link CLAIM} returns it. */
export interface ClaimRow {
  readonly destination: string;
  readonly position: string | number;
  readonly attempts: number;
  readonly recorded_at_ms: number;
  readonly payload: unknown;
  readonly record: unknown;
}

/** A delivery's state after {@link RECORD_OUTCOMES}. */
export interface OutcomeRow {
  readonly destination: string;
  readonly position: string | number;
  readonly state: 'pending' | 'delivered' | 'dead';
  /** Delivered, and a later event of its subject waits for this destination: due now. */
  readonly unblocks: boolean;
}

/**
 * The claim, in one statement: the pending deliveries of these destinations (`$1`) that are due,
 * not under a live lease, and whose subject has no earlier undelivered (pending or dead) event for
 * the same destination, in position order, at most `$2`, skipping rows another relay is claiming
 * this very moment; each gets this claim's id (`$3`), the relay's name (`$4`), a lease of `$5` ms
 * and one more attempt. The statement is a function of migration 004, which carries the planner
 * settings that keep it fast on stale statistics.
 */
export const CLAIM = `
SELECT destination, event_position::text AS position, attempts, recorded_at_ms, payload, record
FROM workforce_kit_claim_outbox_deliveries($1::text[], $2::int, $3::uuid, $4::text, $5::float8)`;

/**
 * The outcomes of a claim (`$8`), in one statement, applied only while the claim is still the
 * rows' (another relay may have taken them over after the lease ran out): delivered; or a retry
 * at now + its delay, or dead once the attempts (`$6`) or the age (`$7` ms) ran out. One entry per
 * delivery in `$1`..`$5`: destination, position, outcome, error, delay. Each recorded delivery
 * says whether it let a later event of its subject go (`unblocks`), which no notification says.
 */
export const RECORD_OUTCOMES = `
WITH recorded AS (
  UPDATE outbox_deliveries AS d
  SET state = CASE
        WHEN o.result = 'delivered' THEN 'delivered'
        WHEN d.attempts >= $6 OR d.created_at <= now() - $7 * interval '1 millisecond' THEN 'dead'
        ELSE 'pending' END,
      delivered_at = CASE WHEN o.result = 'delivered' THEN now() END,
      next_attempt_at = CASE WHEN o.result = 'delivered' THEN d.next_attempt_at
        ELSE now() + o.delay_ms * interval '1 millisecond' END,
      last_error = CASE WHEN o.result = 'delivered' THEN d.last_error ELSE o.error END,
      claim_id = NULL, claimed_until = NULL
  FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::float8[])
    AS o(destination, event_position, result, error, delay_ms)
  WHERE d.destination = o.destination AND d.event_position = o.event_position AND d.claim_id = $8::uuid
  RETURNING d.destination, d.event_position, d.subject_guid, d.state
)
SELECT r.destination, r.event_position::text AS position, r.state,
       r.state = 'delivered' AND EXISTS (
         SELECT 1 FROM outbox_deliveries AS e
         WHERE e.destination = r.destination AND e.subject_guid = r.subject_guid
           AND e.event_position > r.event_position AND e.state = 'pending') AS unblocks
FROM recorded AS r`;

/** Releases an abandoned claim (`$1`): the deliveries are due again at once, for any relay. */
export const RELEASE = `
UPDATE outbox_deliveries SET claim_id = NULL, claimed_until = NULL
WHERE claim_id = $1::uuid AND state = 'pending'`;

/** Registers the destinations `$1` (an upsert). */
export const REGISTER_DESTINATIONS = `
INSERT INTO outbox_destinations (destination)
SELECT DISTINCT unnest($1::text[])
ON CONFLICT (destination) DO UPDATE SET last_registered_at = now()`;

/** Deletes the destination `$1` and its deliveries; the number of deliveries deleted, `n`. */
export const RETIRE_DESTINATION = `
WITH retired AS (DELETE FROM outbox_destinations WHERE destination = $1 RETURNING destination),
     removed AS (DELETE FROM outbox_deliveries WHERE destination IN (SELECT destination FROM retired) RETURNING 1)
SELECT count(*)::int AS n FROM removed`;

/**
 * The dead deliveries a redrive or a purge acts on: all, or the destination `$1`'s, or the events
 * `$2`'s (their ids).
 */
const DEAD_OF_DESTINATION_OR_EVENTS = `d.state = 'dead'
    AND ($1::text IS NULL OR d.destination = $1)
    AND ($2::uuid[] IS NULL OR d.event_position IN (
          SELECT position FROM outbox WHERE event_id = ANY ($2::uuid[])))`;

/**
 * Puts dead deliveries back to pending, due now, attempts from zero: all, or the destination
 * `$1`'s, or the events `$2`'s; notifies the relays when any was. The number re-driven, `n`.
 */
export const REDRIVE = `
WITH redriven AS (
  UPDATE outbox_deliveries AS d
  SET state = 'pending', attempts = 0, next_attempt_at = now(), claim_id = NULL, claimed_until = NULL
  WHERE ${DEAD_OF_DESTINATION_OR_EVENTS}
  RETURNING 1
), notified AS (
  SELECT pg_notify('${OUTBOX_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM redriven)
)
SELECT (SELECT count(*) FROM redriven)::int AS n, (SELECT count(*) FROM notified) AS notified`;

/** Each registered destination's pending and dead deliveries, and its oldest pending one's age (ms). */
export const BACKLOG = `
SELECT ds.destination,
       count(d.event_position) FILTER (WHERE d.state = 'pending')::int AS pending,
       count(d.event_position) FILTER (WHERE d.state = 'dead')::int AS dead,
       (extract(epoch FROM now() - min(d.created_at) FILTER (WHERE d.state = 'pending')) * 1000)::float8 AS oldest
FROM outbox_destinations AS ds
LEFT JOIN outbox_deliveries AS d ON d.destination = ds.destination AND d.state <> 'delivered'
GROUP BY ds.destination ORDER BY ds.destination`;

/**
 * One batch of the retention (migration 007's function, which says what goes), under a period of
 * `$1` ms, at most `$2` rows of each kind, sweeping from position `$3` (or not, when null).
 */
export const PRUNE = `
SELECT deliveries, events, swept_to::text AS swept_to, swept_all, skipped
FROM workforce_kit_prune_outbox($1::float8, $2::int, $3::bigint)`;

/**
 * Whether the database runs autovacuum (a PostgreSQL server does; PGlite, one backend, does not,
 * and its tables keep the space of deleted rows until vacuumed).
 */
export const AUTOVACUUMED = `
SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE backend_type = 'autovacuum launcher') AS running`;

/** Reclaims the space of the rows the retention deleted, where no autovacuum does. */
export const VACUUM_OUTBOX = 'VACUUM outbox_deliveries, outbox';

/**
 * Deletes dead deliveries: all, or the destination `$1`'s, or the events `$2`'s; notifies the
 * relays when any was (the later events they held back can go). The number deleted, `n`.
 */
export const PURGE_DEAD = `
WITH purged AS (
  DELETE FROM outbox_deliveries AS d
  WHERE ${DEAD_OF_DESTINATION_OR_EVENTS}
  RETURNING 1
), notified AS (
  SELECT pg_notify('${OUTBOX_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM purged)
)
SELECT (SELECT count(*) FROM purged)::int AS n, (SELECT count(*) FROM notified) AS notified`;
