// The floor of the PostgreSQL store's targets (issue 42): the bench's requests written by hand as a
// good engineer writes them against a PostgreSQL server, as plainly as possible. node:http and a
// `pg` pool of 20 over tables of its own (the database of DATABASE_URL, created and seeded at the
// start); a change is ONE statement, in autocommit: a conditional UPDATE (`… AND deleted = …`)
// whose event a data-modifying CTE inserts; a GET is one read. The token is verified once with
// jose and then found in a map; the GUIDs are the only checks. No other validation, no problem
// details, no rate limits, no logs, no metrics.
import { createServer } from 'node:http';
import { toEmployeeBody, toRestaurantBody } from '@workforce-kit/express-adapter';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { BENCH_AUDIENCE, BENCH_ISSUER, BENCH_SECRET, benchSeed } from '../fixtures.js';
import { JSON_TYPE, type Listening, listen } from './common.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMPLOYEES = '/labor/v1/employees/';
const RESTAURANTS = '/restaurants/v1/restaurants/';
const UNARCHIVE = '/unarchive';
const secret = new TextEncoder().encode(BENCH_SECRET);

const SCHEMA = `
  CREATE TABLE plain_restaurants (guid uuid PRIMARY KEY, data jsonb NOT NULL);
  CREATE TABLE plain_employees (
    restaurant_guid uuid NOT NULL REFERENCES plain_restaurants (guid),
    guid uuid NOT NULL,
    deleted boolean NOT NULL,
    data jsonb NOT NULL,
    PRIMARY KEY (restaurant_guid, guid)
  );
  CREATE TABLE plain_events (
    position bigserial PRIMARY KEY,
    event_id uuid NOT NULL DEFAULT gen_random_uuid(),
    type text NOT NULL,
    restaurant_guid uuid NOT NULL,
    employee_guid uuid NOT NULL,
    occurred_at timestamptz NOT NULL
  )`;

const READ_RESTAURANT = 'SELECT data FROM plain_restaurants WHERE guid = $1';

/** Archive: the employee changed only if it is live, and its event with it. */
const ARCHIVE = `
  WITH changed AS (
    UPDATE plain_employees
    SET deleted = true,
        data = data || jsonb_build_object('deleted', true, 'deletedDate', $3::text, 'modifiedDate', $3::text)
    WHERE restaurant_guid = $1 AND guid = $2 AND deleted = false
    RETURNING guid, data
  ), recorded AS (
    INSERT INTO plain_events (type, restaurant_guid, employee_guid, occurred_at)
    SELECT 'EmployeeArchived', $1, guid, $3::timestamptz FROM changed
  )
  SELECT data FROM changed`;

/** Unarchive: the employee changed only if it is archived, and its event with it. */
const UNARCHIVE_EMPLOYEE = `
  WITH changed AS (
    UPDATE plain_employees
    SET deleted = false,
        data = (data - 'deletedDate') || jsonb_build_object('deleted', false, 'modifiedDate', $3::text)
    WHERE restaurant_guid = $1 AND guid = $2 AND deleted = true
    RETURNING guid, data
  ), recorded AS (
    INSERT INTO plain_events (type, restaurant_guid, employee_guid, occurred_at)
    SELECT 'EmployeeUnarchived', $1, guid, $3::timestamptz FROM changed
  )
  SELECT data FROM changed`;

/** When a change matched nothing: is there such an employee, and is it archived? */
const READ_EMPLOYEE = 'SELECT data FROM plain_employees WHERE restaurant_guid = $1 AND guid = $2';

/** Its tables, created and seeded with the bench's records (a new database each start). */
async function createTables(pool: pg.Pool): Promise<void> {
  const seed = benchSeed();
  await pool.query(SCHEMA);
  for (const restaurant of seed.restaurants) {
    await pool.query('INSERT INTO plain_restaurants (guid, data) VALUES ($1, $2)', [
      restaurant.guid,
      JSON.stringify(toRestaurantBody(restaurant)),
    ]);
  }
  await pool.query(
    'INSERT INTO plain_employees (restaurant_guid, guid, deleted, data) SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::boolean[], $4::jsonb[])',
    [
      seed.employees.map((employee) => employee.restaurantGuid),
      seed.employees.map((employee) => employee.guid),
      seed.employees.map((employee) => employee.deleted),
      seed.employees.map((employee) => JSON.stringify(toEmployeeBody(employee))),
    ],
  );
}

export async function pgPlain(): Promise<Listening> {
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 });
  await createTables(pool);
  const tokens = new Map<string, { scopes: string[]; restaurants: string[] }>();

  const server = createServer(async (req, res) => {
    const answer = (status: number, body?: unknown) => {
      if (body === undefined) {
        res.writeHead(status, { 'Content-Length': '0' }).end();
        return;
      }
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'Content-Type': JSON_TYPE,
        'Content-Length': Buffer.byteLength(text),
      });
      res.end(text);
    };
    const url = req.url ?? '/';
    const operation =
      req.method === 'GET' && url.startsWith(RESTAURANTS)
        ? 'getRestaurant'
        : req.method === 'DELETE' && url.startsWith(EMPLOYEES)
          ? 'archiveEmployee'
          : req.method === 'PUT' && url.startsWith(EMPLOYEES) && url.endsWith(UNARCHIVE)
            ? 'unarchiveEmployee'
            : 'none';
    if (operation === 'none') return answer(404);
    const authorization = req.headers.authorization ?? '';
    const token = authorization.startsWith('Bearer ') ? authorization.slice(7) : '';
    let principal = tokens.get(token);
    if (principal === undefined) {
      try {
        const { payload } = await jwtVerify(token, secret, {
          algorithms: ['HS256'],
          issuer: BENCH_ISSUER,
          audience: BENCH_AUDIENCE,
        });
        principal = {
          scopes: String(payload.scope ?? '').split(' '),
          restaurants: (payload.restaurants as string[] | undefined) ?? [],
        };
        tokens.set(token, principal);
      } catch {
        return answer(401);
      }
    }
    const scope = operation === 'getRestaurant' ? 'restaurants:read' : 'labor.employees:write';
    if (!principal.scopes.includes(scope)) return answer(403);
    const context = req.headers['platform-restaurant-external-id'];
    if (typeof context !== 'string' || !GUID.test(context)) return answer(400);
    const restaurant = context.toLowerCase();
    if (!principal.restaurants.includes(restaurant)) return answer(403);
    try {
      if (operation === 'getRestaurant') {
        const id = url.slice(RESTAURANTS.length);
        if (id.toLowerCase() !== restaurant) return answer(404);
        const { rows } = await pool.query(READ_RESTAURANT, [restaurant]);
        return rows[0] === undefined ? answer(404) : answer(200, rows[0].data);
      }
      const archiving = operation === 'archiveEmployee';
      const id = url.slice(EMPLOYEES.length, archiving ? undefined : -UNARCHIVE.length);
      if (!GUID.test(id)) return answer(400);
      const values = [restaurant, id.toLowerCase(), new Date().toISOString()];
      const { rows } = await pool.query(archiving ? ARCHIVE : UNARCHIVE_EMPLOYEE, values);
      if (rows[0] !== undefined) return answer(200, rows[0].data);
      // Nothing changed: no such employee (404), or it already was archived (an archive is a 200,
      // an unarchive a 400).
      const { rows: found } = await pool.query(READ_EMPLOYEE, values.slice(0, 2));
      if (found[0] === undefined) return answer(404);
      return archiving ? answer(200, found[0].data) : answer(400);
    } catch {
      return answer(503);
    }
  });
  const listening = await listen(server);
  return {
    port: listening.port,
    close: async () => {
      await listening.close();
      await pool.end();
    },
  };
}
