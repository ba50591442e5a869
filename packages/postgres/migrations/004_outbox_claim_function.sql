-- The relay's claim (createOutboxRelay), as a function so that its planner settings come with it.
-- A delivery table fills faster than its statistics follow (a burst of changes, a receiver down
-- for a while): planned on stale statistics, the claim read every pending delivery, checked each
-- for an earlier undelivered event of its subject, and sorted them all, on every claim (about
-- 50 ms at 5,000 pending). Without sorts and bitmap scans the plan walks the pending index in
-- position order and stops at the batch size, whatever the statistics say (about 0.4 ms).
--
-- It claims the pending deliveries of these destinations that are due, not under a live lease,
-- and whose subject has no earlier undelivered (pending or dead) event for the same destination,
-- in position order, skipping rows another relay is claiming this very moment; each gets the
-- claim's id, a lease and one more attempt. Returns them with their events, in position order.
CREATE FUNCTION workforce_kit_claim_outbox_deliveries(
  destinations text[], batch_size integer, claim uuid, relay text, lease_ms double precision)
RETURNS TABLE (
  destination text, event_position bigint, attempts integer,
  recorded_at_ms double precision, payload jsonb, record jsonb)
LANGUAGE sql VOLATILE
SET enable_sort = off
SET enable_bitmapscan = off
AS $claim$
WITH due AS (
  SELECT d.destination, d.event_position
  FROM outbox_deliveries AS d
  WHERE d.state = 'pending'
    AND d.destination = ANY ($1)
    AND d.next_attempt_at <= now()
    AND (d.claimed_until IS NULL OR d.claimed_until <= now())
    AND NOT EXISTS (
      SELECT 1 FROM outbox_deliveries AS e
      WHERE e.destination = d.destination AND e.subject_guid = d.subject_guid
        AND e.event_position < d.event_position AND e.state <> 'delivered')
  ORDER BY d.event_position
  LIMIT $2
  FOR UPDATE SKIP LOCKED
), claimed AS (
  UPDATE outbox_deliveries AS d
  SET claim_id = $3, claimed_by = $4, claimed_until = now() + $5 * interval '1 millisecond',
      attempts = d.attempts + 1, last_attempt_at = now()
  FROM due
  WHERE d.destination = due.destination AND d.event_position = due.event_position
  RETURNING d.destination, d.event_position, d.attempts, d.created_at
)
SELECT c.destination, c.event_position, c.attempts,
       (extract(epoch FROM c.created_at) * 1000)::float8, o.payload, o.record
FROM claimed AS c JOIN outbox AS o ON o.position = c.event_position
ORDER BY c.event_position
$claim$;
