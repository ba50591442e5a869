-- The conditional writes of 006 (one change) and 008 (a batch), for a store that keeps records in
-- process. A change carries its record's data whole, or, when the store holds the record at the
-- version the change read, only what changed: `patch`, the fields set (a JSON object), and
-- `removed`, the fields dropped, applied to the row's data, which the version check guarantees is
-- the record the store holds. A change written answers its new version only (the store has the
-- record it sent); a change not written answers the record as it stands (its data, version and
-- external id), read after the write failed, so that a lost race costs the writer no read of its
-- own.
--
-- Each change is written as in 006 and 008: only at the version read and with its external id
-- unchanged, its events with it in the order of the batch, each with the record as it stands after
-- the change (without the passcode and the swipe card), one pending delivery per registered relay
-- destination, and one `pg_notify` on `channel` at commit when a delivery was queued. Under READ
-- COMMITTED a concurrent writer that won makes the change match nothing (PostgreSQL re-checks the
-- version on the row it committed). The record of a change not written is read by a statement of
-- its own, which sees what that writer committed: the statement that wrote sees the rows as they
-- were when it began. 006 and 008 stay, for processes of an earlier version.
--
-- One change: returns one row, its new version (null when it was not written), whether the record
-- exists, and, when it was not written, its external id, data and version.
-- `record_data` is the record's data whole, or null when `record_patch` and `removed_keys` say what
-- changed.
CREATE FUNCTION workforce_kit_change_record(
  kind text, restaurant uuid, record_guid uuid, expected_version integer, record_external_id text,
  record_deleted boolean, record_data jsonb, record_patch jsonb, removed_keys text[],
  record_events jsonb, channel text)
RETURNS TABLE (written_version integer, record_exists boolean, stored_external_id text,
  stored_data jsonb, stored_version integer)
LANGUAGE plpgsql VOLATILE
AS $change$
DECLARE
  new_version integer;
  new_data jsonb;
  queued integer;
BEGIN
  -- Static statements per table, so that each keeps its plan.
  IF kind = 'employees' THEN
    UPDATE employees AS r
    SET version = r.version + 1, deleted = record_deleted,
      data = coalesce(record_data, (r.data - removed_keys) || record_patch)
    WHERE r.restaurant_guid = restaurant AND r.guid = record_guid
      AND r.version = expected_version AND r.external_id IS NOT DISTINCT FROM record_external_id
    RETURNING r.version, r.data INTO new_version, new_data;
    IF new_version IS NULL THEN
      RETURN QUERY SELECT NULL::integer, true, r.external_id, r.data, r.version
        FROM employees AS r WHERE r.restaurant_guid = restaurant AND r.guid = record_guid;
      IF NOT FOUND THEN
        RETURN QUERY SELECT NULL::integer, false, NULL::text, NULL::jsonb, NULL::integer;
      END IF;
      RETURN;
    END IF;
  ELSIF kind = 'shifts' THEN
    UPDATE shifts AS r
    SET version = r.version + 1, deleted = record_deleted,
      data = coalesce(record_data, (r.data - removed_keys) || record_patch)
    WHERE r.restaurant_guid = restaurant AND r.guid = record_guid
      AND r.version = expected_version AND r.external_id IS NOT DISTINCT FROM record_external_id
    RETURNING r.version, r.data INTO new_version, new_data;
    IF new_version IS NULL THEN
      RETURN QUERY SELECT NULL::integer, true, r.external_id, r.data, r.version
        FROM shifts AS r WHERE r.restaurant_guid = restaurant AND r.guid = record_guid;
      IF NOT FOUND THEN
        RETURN QUERY SELECT NULL::integer, false, NULL::text, NULL::jsonb, NULL::integer;
      END IF;
      RETURN;
    END IF;
  ELSE
    RAISE EXCEPTION 'workforce_kit_change_record: unknown kind %', kind;
  END IF;

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

  RETURN QUERY SELECT new_version, true, NULL::text, NULL::jsonb, NULL::integer;
END
$change$;

-- A batch: `changes` as 008 takes it, a JSON array of `{ kind, restaurant, guid, expected,
-- external_id, deleted, data, events }` (`data` null, and `patch` and `removed` given, for a change
-- of what changed only), at most one per record, sorted by record (so that writers of several
-- processes lock rows in one order). Returns one row per change: its place in `changes`
-- (`arrival`, from 1), then as the function above.
CREATE FUNCTION workforce_kit_change_records(changes jsonb, channel text)
RETURNS TABLE (arrival integer, written_version integer, record_exists boolean,
  stored_external_id text, stored_data jsonb, stored_version integer)
LANGUAGE plpgsql VOLATILE
-- As 008: each change finds its record by its primary key, and one plan for every batch.
SET enable_hashjoin = off
SET enable_mergejoin = off
SET plan_cache_mode = force_generic_plan
AS $change$
DECLARE
  written integer[];
  versions integer[];
BEGIN
  WITH input AS (
    SELECT x.arrival::integer AS arrival, c.*
    FROM jsonb_array_elements(changes) WITH ORDINALITY AS x(change, arrival)
    CROSS JOIN LATERAL jsonb_to_record(x.change) AS c(kind text, restaurant uuid, guid uuid,
      expected integer, external_id text, deleted boolean, data jsonb, patch jsonb,
      removed text[], events jsonb)
  ),
  updated_employees AS (
    UPDATE employees AS r
    SET version = r.version + 1, deleted = i.deleted,
      data = coalesce(i.data, (r.data - i.removed) || i.patch)
    FROM input AS i
    WHERE i.kind = 'employees' AND r.restaurant_guid = i.restaurant AND r.guid = i.guid
      AND r.version = i.expected AND r.external_id IS NOT DISTINCT FROM i.external_id
    RETURNING i.arrival, r.guid, r.data, r.version, i.events
  ),
  updated_shifts AS (
    UPDATE shifts AS r
    SET version = r.version + 1, deleted = i.deleted,
      data = coalesce(i.data, (r.data - i.removed) || i.patch)
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
  )
  SELECT array_agg(u.arrival), array_agg(u.version) INTO written, versions
  FROM updated AS u
  -- One notification for the batch, when it queued a delivery.
  CROSS JOIN (SELECT count(*) FROM (SELECT pg_notify(channel, '') FROM delivered LIMIT 1) AS once)
    AS notified;

  RETURN QUERY
  SELECT w.arrival, w.version, true, NULL::text, NULL::jsonb, NULL::integer
  FROM unnest(written, versions) AS w(arrival, version)
  WHERE written IS NOT NULL;
  IF coalesce(cardinality(written), 0) = jsonb_array_length(changes) THEN
    RETURN;
  END IF;

  -- The changes not written, their records as they stand now (this statement's own snapshot).
  RETURN QUERY
  WITH input AS (
    SELECT x.arrival::integer AS arrival, c.*
    FROM jsonb_array_elements(changes) WITH ORDINALITY AS x(change, arrival)
    CROSS JOIN LATERAL jsonb_to_record(x.change) AS c(kind text, restaurant uuid, guid uuid)
    WHERE written IS NULL OR NOT x.arrival::integer = ANY (written)
  ),
  stored AS (
    SELECT i.arrival, s.external_id, s.data, s.version FROM input AS i JOIN employees AS s
      ON i.kind = 'employees' AND s.restaurant_guid = i.restaurant AND s.guid = i.guid
    UNION ALL
    SELECT i.arrival, s.external_id, s.data, s.version FROM input AS i JOIN shifts AS s
      ON i.kind = 'shifts' AND s.restaurant_guid = i.restaurant AND s.guid = i.guid
  )
  SELECT i.arrival, NULL::integer, s.arrival IS NOT NULL, s.external_id, s.data, s.version
  FROM input AS i LEFT JOIN stored AS s ON s.arrival = i.arrival;
END
$change$;
