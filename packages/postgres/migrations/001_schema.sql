-- The records and the outbox. Every record belongs to one restaurant; reads and writes name it.
-- `data` holds the whole domain record but its version; the other columns are its keys and what
-- constraints and queries need.

CREATE TABLE restaurants (
  guid uuid PRIMARY KEY,
  archived boolean NOT NULL,
  data jsonb NOT NULL
);

CREATE TABLE employees (
  restaurant_guid uuid NOT NULL REFERENCES restaurants (guid),
  guid uuid NOT NULL,
  version integer NOT NULL CHECK (version > 0),
  external_id text,
  deleted boolean NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (restaurant_guid, guid),
  UNIQUE (restaurant_guid, external_id)
);

CREATE TABLE shifts (
  restaurant_guid uuid NOT NULL REFERENCES restaurants (guid),
  guid uuid NOT NULL,
  version integer NOT NULL CHECK (version > 0),
  external_id text,
  deleted boolean NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (restaurant_guid, guid),
  UNIQUE (restaurant_guid, external_id)
);

-- Domain events, written in the same statement as their change. `position` orders them.
CREATE TABLE outbox (
  position bigserial PRIMARY KEY,
  event_id uuid NOT NULL UNIQUE,
  type text NOT NULL,
  restaurant_guid uuid NOT NULL,
  subject_guid uuid NOT NULL,
  occurred_at timestamptz NOT NULL,
  request_id text NOT NULL,
  payload jsonb NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX outbox_by_restaurant ON outbox (restaurant_guid, position);
CREATE INDEX outbox_by_subject ON outbox (subject_guid, position);
