-- Seeding, in one statement: into an empty database only, under the same advisory lock as the
-- migrations, so that processes starting together seed once.

CREATE FUNCTION workforce_kit_seed(seed jsonb) RETURNS boolean
LANGUAGE plpgsql AS $seed$
BEGIN
  PERFORM pg_advisory_xact_lock(7438291001);
  IF EXISTS (SELECT 1 FROM restaurants) OR EXISTS (SELECT 1 FROM employees)
     OR EXISTS (SELECT 1 FROM shifts) THEN
    RETURN false;
  END IF;
  INSERT INTO restaurants (guid, archived, data)
  SELECT (r ->> 'guid')::uuid, (r -> 'general' ->> 'archived')::boolean, r
  FROM jsonb_array_elements(seed -> 'restaurants') AS r;
  INSERT INTO employees (restaurant_guid, guid, version, external_id, deleted, data)
  SELECT (e ->> 'restaurantGuid')::uuid, (e ->> 'guid')::uuid, (e ->> 'version')::integer,
         e ->> 'externalId', (e ->> 'deleted')::boolean, e - 'version'
  FROM jsonb_array_elements(seed -> 'employees') AS e;
  INSERT INTO shifts (restaurant_guid, guid, version, external_id, deleted, data)
  SELECT (s ->> 'restaurantGuid')::uuid, (s ->> 'guid')::uuid, (s ->> 'version')::integer,
         s ->> 'externalId', (s ->> 'deleted')::boolean, s - 'version'
  FROM jsonb_array_elements(seed -> 'shifts') AS s;
  RETURN true;
END
$seed$;
