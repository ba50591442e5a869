-- The outbox relay: who receives events (destinations), and the delivery state of each event for
-- each destination. The write statement of a change inserts one pending delivery per registered
-- destination, together with the event, so no event can be skipped whatever order transactions
-- commit in. Events written before a destination was registered are not delivered to it.

-- The record as it stood after the change (its data without the version, the passcode and the
-- swipe card), for the webhook's `record`. Events written before this migration have none.
ALTER TABLE outbox ADD COLUMN record jsonb;

-- The destinations relays deliver to (webhook URLs), registered by the relays at start.
-- Retiring one deletes it and its deliveries.
CREATE TABLE outbox_destinations (
  destination text PRIMARY KEY,
  registered_at timestamptz NOT NULL DEFAULT now(),
  last_registered_at timestamptz NOT NULL DEFAULT now()
);

-- One row per event and destination. `pending` rows are due at `next_attempt_at`; a relay that
-- claims one holds it until `claimed_until` (the lease) under the claim's `claim_id`, and only
-- that claim's outcome is recorded. `dead` rows stay until re-driven (back to `pending`).
CREATE TABLE outbox_deliveries (
  destination text NOT NULL REFERENCES outbox_destinations (destination) ON DELETE CASCADE,
  event_position bigint NOT NULL REFERENCES outbox (position),
  subject_guid uuid NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'dead')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claim_id uuid,
  claimed_by text,
  claimed_until timestamptz,
  last_attempt_at timestamptz,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (destination, event_position)
);

-- The claim: pending deliveries in position order.
CREATE INDEX outbox_deliveries_pending ON outbox_deliveries (event_position)
  WHERE state = 'pending';
-- Per-subject order: whether a subject has an earlier undelivered event for a destination.
CREATE INDEX outbox_deliveries_undelivered_by_subject
  ON outbox_deliveries (destination, subject_guid, event_position)
  WHERE state <> 'delivered';
CREATE INDEX outbox_deliveries_dead ON outbox_deliveries (destination, event_position)
  WHERE state = 'dead';
