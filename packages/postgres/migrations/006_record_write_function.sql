-- The conditional write of one record and its events, as a PL/pgSQL function: a function's
-- statements are planned once per session and their plans kept, where the same work as one
-- data-modifying CTE was planned again on every change (about half of a write's time in PGlite).
--
-- The update happens only at the version read (and with the record's external id unchanged),
-- and the events are inserted only if it did. Under READ COMMITTED, a concurrent writer that won
-- makes the update match nothing (PostgreSQL re-checks the version on the row it committed), so a
-- lost race is a clean version conflict. With each event go the record as it stands after the
-- change (without the passcode and the swipe card, which no receiver is shown) and one pending
-- delivery per registered relay destination; when a delivery was queued, `pg_notify` on
-- `channel` wakes the relays at commit.
--
-- Returns one row: the record's data and version after the change (null when it did not
-- happen), whether the record exists, and its current external id (to tell a refused change of
-- identity from a version conflict).
CREATE FUNCTION workforce_kit_write_record(
  kind text, restaurant uuid, record_guid uuid, expected_version integer, record_external_id text,
  record_deleted boolean, record_data jsonb, record_events jsonb, channel text)
RETURNS TABLE (data jsonb, version integer, found boolean, current_external_id text)
LANGUAGE plpgsql VOLATILE
AS $write$
DECLARE
  stored_external_id text;
  exists_now boolean;
  new_data jsonb;
  new_version integer;
  queued integer;
BEGIN
  -- Static statements per table, so that each keeps its plan.
  IF kind = 'employees' THEN
    SELECT r.external_id INTO stored_external_id
    FROM employees AS r WHERE r.restaurant_guid = restaurant AND r.guid = record_guid;
    exists_now := FOUND;
    UPDATE employees AS r
    SET version = r.version + 1, deleted = record_deleted, data = record_data
    WHERE r.restaurant_guid = restaurant AND r.guid = record_guid
      AND r.version = expected_version AND r.external_id IS NOT DISTINCT FROM record_external_id
    RETURNING r.data, r.version INTO new_data, new_version;
  ELSIF kind = 'shifts' THEN
    SELECT r.external_id INTO stored_external_id
    FROM shifts AS r WHERE r.restaurant_guid = restaurant AND r.guid = record_guid;
    exists_now := FOUND;
    UPDATE shifts AS r
    SET version = r.version + 1, deleted = record_deleted, data = record_data
    WHERE r.restaurant_guid = restaurant AND r.guid = record_guid
      AND r.version = expected_version AND r.external_id IS NOT DISTINCT FROM record_external_id
    RETURNING r.data, r.version INTO new_data, new_version;
  ELSE
    RAISE EXCEPTION 'workforce_kit_write_record: unknown kind %', kind;
  END IF;

  IF new_version IS NOT NULL THEN
    WITH recorded AS (
      INSERT INTO outbox (event_id, type, restaurant_guid, subject_guid, occurred_at, request_id, payload, record)
      SELECT (e ->> 'eventId')::uuid, e ->> 'type', (e ->> 'restaurantGuid')::uuid, record_guid,
             (e ->> 'occurredAt')::timestamptz, e ->> 'requestId', e,
             new_data - 'passcode' - 'swipeCard'
      FROM jsonb_array_elements(record_events) AS e
      RETURNING position, subject_guid
    )
    INSERT INTO outbox_deliveries (destination, event_position, subject_guid)
    SELECT d.destination, r.position, r.subject_guid
    FROM recorded AS r CROSS JOIN outbox_destinations AS d;
    GET DIAGNOSTICS queued = ROW_COUNT;
    IF queued > 0 THEN
      PERFORM pg_notify(channel, '');
    END IF;
  END IF;

  RETURN QUERY SELECT new_data, new_version, exists_now, stored_external_id;
END
$write$;
