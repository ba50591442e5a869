-- Retention of the outbox (createOutboxRelay's `retention`): delivered deliveries, and events with
-- no delivery left, are deleted once older than the retention period, in small batches, by the
-- relays. Dead deliveries, the pending ones they hold back, and their events stay.
--
-- The deliveries' primary key leads with the event's position rather than the destination: both
-- "is a delivery of this event left?" (the retention's test, and the foreign key's check when an
-- event is deleted) and the relay's updates by (destination, position) are then one index lookup,
-- with no index added to the write path. (Led by the destination, the foreign key's check read the
-- whole index for each event deleted.) Retiring a destination, rare, reads the table instead.
-- On a large outbox_deliveries the key is rebuilt while the table is locked (0.8 s for a million
-- deliveries on a PostgreSQL server on a 2-core VM).
ALTER TABLE outbox_deliveries DROP CONSTRAINT outbox_deliveries_pkey;
ALTER TABLE outbox_deliveries ADD PRIMARY KEY (event_position, destination);

-- The retention's walk: delivered deliveries, the oldest first. Filled by the relays as they
-- record deliveries, not by the write statement.
CREATE INDEX outbox_deliveries_delivered ON outbox_deliveries (delivered_at)
  WHERE state = 'delivered';

-- One batch of the retention, one statement (its own short transaction), under a cutoff of
-- now - `retention_ms`: at most `batch_size` deliveries delivered before the cutoff, the oldest
-- first, and their events where no delivery is left; then, when `sweep_from` is given, the sweep:
-- the `batch_size` events after that position, of which those recorded before the cutoff with no
-- delivery are deleted (events recorded while no destination was registered, or whose deliveries
-- were purged or retired). Dead and pending deliveries keep their events. The sweep says where
-- it got to (`swept_to`, the next batch's `sweep_from`) and whether it reached the events recorded
-- after the cutoff or the newest (`swept_all`): positions follow the order events are recorded
-- in, so the sweep reads only the old events still kept, never the outbox.
--
-- Rows another transaction holds are skipped (FOR UPDATE SKIP LOCKED): no writer waits for a
-- batch, nor a batch for a writer; what a batch skips, a later one deletes. One relay prunes at a
-- time: a batch that finds the advisory lock taken does nothing and says so (`skipped`).
CREATE FUNCTION workforce_kit_prune_outbox(
  retention_ms double precision, batch_size integer, sweep_from bigint)
RETURNS TABLE (
  deliveries integer, events integer, swept_to bigint, swept_all boolean, skipped boolean)
LANGUAGE plpgsql VOLATILE
SET enable_sort = off
SET enable_bitmapscan = off
AS $prune$
DECLARE
  cutoff timestamptz := now() - retention_ms * interval '1 millisecond';
  freed bigint[];
  examined integer;
  reached_recent boolean;
  swept integer;
BEGIN
  deliveries := 0;
  events := 0;
  swept_to := sweep_from;
  swept_all := sweep_from IS NULL;
  skipped := NOT pg_try_advisory_xact_lock(7438291002);
  IF skipped THEN
    RETURN NEXT;
    RETURN;
  END IF;

  WITH doomed AS (
    SELECT d.event_position, d.destination
    FROM outbox_deliveries AS d
    WHERE d.state = 'delivered' AND d.delivered_at < cutoff
    ORDER BY d.delivered_at
    LIMIT batch_size
    FOR UPDATE SKIP LOCKED
  ), deleted AS (
    DELETE FROM outbox_deliveries AS d USING doomed
    WHERE d.event_position = doomed.event_position AND d.destination = doomed.destination
    RETURNING d.event_position
  )
  SELECT count(*)::integer, array_agg(DISTINCT deleted.event_position) INTO deliveries, freed
  FROM deleted;

  WITH doomed AS (
    SELECT o.position
    FROM outbox AS o
    WHERE o.position = ANY (freed) AND o.recorded_at < cutoff
      AND NOT EXISTS (SELECT 1 FROM outbox_deliveries AS d WHERE d.event_position = o.position)
    FOR UPDATE SKIP LOCKED
  )
  DELETE FROM outbox AS o USING doomed WHERE o.position = doomed.position;
  GET DIAGNOSTICS events = ROW_COUNT;

  IF sweep_from IS NOT NULL THEN
    SELECT max(chunk.position), count(*)::integer, coalesce(bool_or(chunk.recorded_at >= cutoff), false)
    INTO swept_to, examined, reached_recent
    FROM (
      SELECT o.position, o.recorded_at FROM outbox AS o
      WHERE o.position > sweep_from ORDER BY o.position LIMIT batch_size
    ) AS chunk;
    swept_to := coalesce(swept_to, sweep_from);
    swept_all := examined < batch_size OR reached_recent;
    WITH doomed AS (
      SELECT o.position
      FROM outbox AS o
      WHERE o.position > sweep_from AND o.position <= swept_to AND o.recorded_at < cutoff
        AND NOT EXISTS (SELECT 1 FROM outbox_deliveries AS d WHERE d.event_position = o.position)
      FOR UPDATE SKIP LOCKED
    )
    DELETE FROM outbox AS o USING doomed WHERE o.position = doomed.position;
    GET DIAGNOSTICS swept = ROW_COUNT;
    events := events + swept;
  END IF;
  RETURN NEXT;
END
$prune$;
