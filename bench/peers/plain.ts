// The floor of the node:http adapter's targets, written as plainly as possible: the API's work for
// the bench's requests (a route lookup, a token verified once and then found in a map, the two
// rate-limit counters, the restaurant header and the path's GUID checked, one record from a map,
// the state change with its event, one serialisation) in one node:http handler, with the reference
// server's defaults written as the floors write them (helmet's headers, no-store and nosniff, a new
// X-Request-Id, the RateLimit-* three, prom-client's request metrics, pino's log line, and the
// event's log line). No validation beyond the GUIDs, no problem details beyond a status, no
// pipeline: what workforce-kit on node:http spends beyond it is the cost of being a library.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { jwtVerify } from 'jose';
import { BENCH_AUDIENCE, BENCH_ISSUER, BENCH_SECRET, benchSeed } from '../fixtures.js';
import { BODIES, JSON_TYPE, type Listening, listen } from './common.js';
import { floorDefaults } from './floor-defaults.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMPLOYEES = '/labor/v1/employees/';
const RESTAURANTS = '/restaurants/v1/restaurants/';
const UNARCHIVE = '/unarchive';
const secret = new TextEncoder().encode(BENCH_SECRET);

interface Employee {
  readonly guid: string;
  readonly deleted: boolean;
  readonly deletedDate?: string;
  readonly modifiedDate: string;
  readonly [field: string]: unknown;
}

/** The employee's fields on the wire (the store's own, such as its restaurant, left out). */
function wire(employee: Employee): object {
  const { restaurantGuid: _restaurant, version: _version, swipeCard: _card, ...shown } = employee;
  return { ...shown, entityType: 'RestaurantUser' };
}

export function nodePlain(): Promise<Listening> {
  const seed = benchSeed();
  const restaurant = seed.restaurants[0]?.guid ?? '';
  const employees = new Map<string, Employee>(
    seed.employees.map((employee) => [employee.guid, employee as unknown as Employee]),
  );
  const events: object[] = [];
  const tokens = new Map<string, { scopes: string[]; restaurants: string[] }>();
  const counts = new Map<
    string,
    { second: number; secondEnds: number; quarter: number; quarterEnds: number }
  >();
  const defaults = floorDefaults();
  const every = defaults.everyAnswer;

  return listen(
    createServer(async (req, res) => {
      const url = req.url ?? '/';
      const operation =
        req.method === 'GET' && url.startsWith(RESTAURANTS)
          ? 'getRestaurant'
          : req.method === 'DELETE' && url.startsWith(EMPLOYEES)
            ? 'archiveEmployee'
            : req.method === 'PUT' && url.startsWith(EMPLOYEES) && url.endsWith(UNARCHIVE)
              ? 'unarchiveEmployee'
              : 'none';
      const requestId = defaults.observe(req, res, operation);
      const refuse = (status: number) => {
        res.writeHead(status, [...every, 'X-Request-Id', requestId, 'Content-Length', '0']);
        res.end();
      };
      if (operation === 'none') return refuse(404);
      // The token: verified once, then found.
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
          return refuse(401);
        }
      }
      const scope = operation === 'getRestaurant' ? 'restaurants:read' : 'labor.employees:write';
      if (!principal.scopes.includes(scope)) return refuse(403);
      const context = req.headers['platform-restaurant-external-id'];
      if (typeof context !== 'string' || !GUID.test(context)) return refuse(400);
      if (!principal.restaurants.includes(context.toLowerCase())) return refuse(403);
      // The two windows of the rate limits, counted.
      const now = Date.now();
      let count = counts.get(context);
      if (count === undefined) {
        count = { second: 0, secondEnds: now + 1000, quarter: 0, quarterEnds: now + 900_000 };
        counts.set(context, count);
      }
      if (count.secondEnds <= now) {
        count.second = 0;
        count.secondEnds = now + 1000;
      }
      count.second += 1;
      count.quarter += 1;
      const limits = [
        'RateLimit-Limit',
        '1000000000',
        'RateLimit-Remaining',
        String(1_000_000_000 - count.second),
        'RateLimit-Reset',
        String(Math.ceil((count.secondEnds - now) / 1000)),
      ];
      let body: object;
      if (operation === 'getRestaurant') {
        if (url.slice(RESTAURANTS.length) !== restaurant) return refuse(404);
        body = BODIES.restaurant;
      } else {
        if (
          operation === 'unarchiveEmployee' &&
          req.headers['content-type'] !== 'application/json'
        ) {
          return refuse(415);
        }
        const id = url.slice(
          EMPLOYEES.length,
          operation === 'unarchiveEmployee' ? -UNARCHIVE.length : undefined,
        );
        if (!GUID.test(id)) return refuse(400);
        const employee = employees.get(id.toLowerCase());
        if (employee === undefined) return refuse(404);
        const at = new Date().toISOString();
        let next = employee;
        if (operation === 'archiveEmployee' && !employee.deleted) {
          next = Object.freeze({ ...employee, deleted: true, deletedDate: at, modifiedDate: at });
        } else if (operation === 'unarchiveEmployee') {
          if (!employee.deleted) return refuse(400);
          const { deletedDate: _removed, ...kept } = employee;
          next = Object.freeze({ ...kept, deleted: false, modifiedDate: at });
        }
        if (next !== employee) {
          employees.set(id, next);
          const event = {
            type: next.deleted ? 'EmployeeArchived' : 'EmployeeUnarchived',
            restaurantGuid: context,
            employeeGuid: id,
            occurredAt: at,
            eventId: randomUUID(),
            requestId,
          };
          events.push(event);
          if (events.length > 20_000) events.splice(0, 10_000);
          defaults.logger.info({ event }, 'domain event');
        }
        body = wire(next);
      }
      const text = JSON.stringify(body);
      res.writeHead(200, [
        ...every,
        'X-Request-Id',
        requestId,
        ...limits,
        'Content-Type',
        JSON_TYPE,
        'Content-Length',
        String(Buffer.byteLength(text)),
      ]);
      res.end(text);
    }),
  );
}
