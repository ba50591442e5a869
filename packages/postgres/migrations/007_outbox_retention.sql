-- Retention of the outbox (createOutboxRelay's `retention`): delivered deliveries, and events with
-- no delivery left, are deleted once older than the retention period, in small batches, by the
-- relays. Dead deliveries, the pending ones they hold back, and their events stay.
--
-- The deliveries' primary key leads with the event's position rather than the destination: both
-- "is a delivery of this event left?" (the retention's test, and the foreign key's check when an
-- event is deleted) and the relay's updates by (destination, position) are then one index lookup,
-- with no index added to the write path. (Led by the destination, the foreign key's check read the
-- whole index for each event deleted.) Retiring a destination, rare, reads the table instead.
-- On a large outbox_deliveries the key is rebuilt while the table is locked (about a second per
-- million rows on a PostgreSQL server).
ALTER TABLE outbox_deliveries DROP CONSTRAINT outbox_deliveries_pkey;
ALTER TABLE outbox_deliveries ADD PRIMARY KEY (event_position, destination);

-- The retention's walk: delivered deliveries, the oldest first. Filled by the relays as they
-- record deliveries, not by the write statement.
CREATE INDEX outbox_deliveries_delivered ON outbox_deliveries (delivered_at)
  WHERE state = 'delivered';

-- One batch of the retention, one statement: at most `batch_size` deliveries delivered before
-- now - `retention_ms`, then at most `batch_size` events recorded before it that have no delivery
-- left (dead or pending ones keep their events), the oldest first, each in a short transaction.
-- Rows another transaction holds are skipped (FOR UPDATE SKIP LOCKED): no writer waits for a
-- batch, nor a batch for a writer. One relay prunes at a time: a batch that finds the advisory
-- lock taken does nothing and says so (`skipped`), and its relay waits for its next run.
--
-- The events' walk stops at the first event recorded after the cutoff (positions follow the order
-- in which events are recorded), so it reads only the old events still kept, not the outbox.
CREATE FUNCTION workforce_kit_prune_outbox(retention_ms double precision, batch_size integer)
RETURNS TABLE (deliveries integer, events integer, skipped boolean)
LANGUAGE plpgsql VOLATILE
SET enable_sort = off
SET enable_bitmapscan = off
AS $prune$
DECLARE
  cutoff timestamptz := now() - retention_ms * interval '1 millisecond';
  first_kept bigint;
BEGIN
  deliveries := 0;
  events := 0;
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
  )
  DELETE FROM outbox_deliveries AS d USING doomed
  WHERE d.event_position = doomed.event_position AND d.destination = doomed.destination;
  GET DIAGNOSTICS deliveries = ROW_COUNT;

  SELECT o.position INTO first_kept
  FROM outbox AS o WHERE o.recorded_at >= cutoff ORDER BY o.position LIMIT 1;
  WITH doomed AS (
    SELECT o.position
    FROM outbox AS o
    WHERE o.position < coalesce(first_kept, 9223372036854775807)
      AND o.recorded_at < cutoff
      AND NOT EXISTS (SELECT 1 FROM outbox_deliveries AS d WHERE d.event_position = o.position)
    ORDER BY o.position
    LIMIT batch_size
    FOR UPDATE SKIP LOCKED
  )
  DELETE FROM outbox AS o USING doomed WHERE o.position = doomed.position;
  GET DIAGNOSTICS events = ROW_COUNT;
  RETURN NEXT;
END
$prune$;
