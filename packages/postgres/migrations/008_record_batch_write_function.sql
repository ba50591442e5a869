-- Group commit: the conditional writes of a batch of records and their events, in one statement.
-- The store keeps one write in flight; the changes that arrive meanwhile are the next batch, so
-- that under load one commit (and, in PGlite, one crossing into the engine and back) serves many
-- changes instead of one. Each change keeps its own compare-and-set, as in 006's
-- function, which the store still calls for a batch of one change (it is quicker for one) and
-- which processes of an earlier version call.
--
-- `changes` is a JSON array of changes, each `{ kind, restaurant, guid, expected, external_id,
-- deleted, data, events }`: `kind` the table (`employees` or `shifts`), `expected` the version
-- read, `data` the record without its version, `events` its events. Each table's part takes the
-- changes of its kind; that filter also keeps the planner's estimate of a batch at a row or two
-- rather than the 100 it assumes of a JSON array, for a plan that took 1.1 ms for one change in
-- PGlite instead of 1.7. The caller sends at most one change per record (the store puts a second
-- one of the same record in the next batch), sorted by record, so that writers of several
-- processes lock rows in one order. Should two batches still lock rows in opposite orders,
-- PostgreSQL ends the deadlock by failing one of them, which the store then sends again change by
-- change.
--
-- Each change is written only at the version read and with its external id unchanged; under READ
-- COMMITTED a concurrent writer that won makes the change match nothing (PostgreSQL re-checks the
-- version on the row it committed): a clean version conflict of that change alone. With each
-- written change go its events, in the order of the batch, each with the record as it stands
-- after the change (without the passcode and the swipe card), one pending delivery per registered
-- relay destination, and, when a delivery was queued, one `pg_notify` on `channel` at commit.
--
-- Returns one row per change: its place in `changes` (`arrival`, from 1), the record's data and
-- version after the change (null when it was not written), whether the record exists, and its
-- current external id (to tell a refused change of identity from a version conflict).
CREATE FUNCTION workforce_kit_write_records(changes jsonb, channel text)
RETURNS TABLE (arrival integer, written_data jsonb, written_version integer, record_exists boolean,
  stored_external_id text)
LANGUAGE plpgsql VOLATILE
-- Each change finds its record by its primary key (a nested loop over the batch), never by hashing
-- the whole table; and one plan for every batch, kept from the first call (planning the statement
-- costs more than running it: about 7 ms in PGlite).
SET enable_hashjoin = off
SET enable_mergejoin = off
SET plan_cache_mode = force_generic_plan
AS $write$
BEGIN
  RETURN QUERY
  WITH input AS (
    SELECT x.arrival::integer AS arrival, c.*
    FROM jsonb_array_elements(changes) WITH ORDINALITY AS x(change, arrival)
    CROSS JOIN LATERAL jsonb_to_record(x.change) AS c(kind text, restaurant uuid, guid uuid,
      expected integer, external_id text, deleted boolean, data jsonb, events jsonb)
  ),
  updated_employees AS (
    UPDATE employees AS r
    SET version = r.version + 1, deleted = i.deleted, data = i.data
    FROM input AS i
    WHERE i.kind = 'employees' AND r.restaurant_guid = i.restaurant AND r.guid = i.guid
      AND r.version = i.expected AND r.external_id IS NOT DISTINCT FROM i.external_id
    RETURNING i.arrival, r.guid, r.data, r.version, i.events
  ),
  updated_shifts AS (
    UPDATE shifts AS r
    SET version = r.version + 1, deleted = i.deleted, data = i.data
    FROM input AS i
    WHERE i.kind = 'shifts' AND r.restaurant_guid = i.restaurant AND r.guid = i.guid
      AND r.version = i.expected AND r.external_id IS NOT DISTINCT FROM i.external_id
    RETURNING i.arrival, r.guid, r.data, r.version, i.events
  ),
  updated AS (
    SELECT * FROM updated_employees UNION ALL SELECT * FROM updated_shifts
  ),
  recorded AS (
    INSERT INTO outbox (event_id, type, restaurant_guid, subject_guid, occurred_at, request_id,
      payload, record)
    SELECT (e ->> 'eventId')::uuid, e ->> 'type', (e ->> 'restaurantGuid')::uuid, u.guid,
           (e ->> 'occurredAt')::timestamptz, e ->> 'requestId', e,
           u.data - 'passcode' - 'swipeCard'
    FROM updated AS u
    CROSS JOIN LATERAL jsonb_array_elements(u.events) WITH ORDINALITY AS x(e, n)
    ORDER BY u.arrival, x.n
    RETURNING position, subject_guid
  ),
  delivered AS (
    INSERT INTO outbox_deliveries (destination, event_position, subject_guid)
    SELECT d.destination, r.position, r.subject_guid
    FROM recorded AS r CROSS JOIN outbox_destinations AS d
    RETURNING 1
  ),
  -- What the records were before the batch (the statement's snapshot), for the changes not written.
  stored AS (
    SELECT i.arrival, s.external_id FROM input AS i JOIN employees AS s
      ON i.kind = 'employees' AND s.restaurant_guid = i.restaurant AND s.guid = i.guid
    UNION ALL
    SELECT i.arrival, s.external_id FROM input AS i JOIN shifts AS s
      ON i.kind = 'shifts' AND s.restaurant_guid = i.restaurant AND s.guid = i.guid
  )
  SELECT i.arrival, u.data, u.version, s.arrival IS NOT NULL, s.external_id
  FROM input AS i
  LEFT JOIN updated AS u ON u.arrival = i.arrival
  LEFT JOIN stored AS s ON s.arrival = i.arrival
  -- One notification for the batch, when it queued a delivery.
  CROSS JOIN (SELECT count(*) FROM (SELECT pg_notify(channel, '') FROM delivered LIMIT 1) AS once)
    AS notified;
END
$write$;
