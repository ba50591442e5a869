// What the hand-written peers of the HTTP bench share: the bodies they answer (those the reference
// server answers for the bench seed), the bearer check a good engineer writes with jose, and the
// listening of a node:http server.
import type { Server } from 'node:http';
import { toEmployeeBody, toRestaurantBody } from '@workforce-kit/express-adapter';
import { jwtVerify } from 'jose';
import { BENCH_AUDIENCE, BENCH_ISSUER, BENCH_SECRET, benchSeed } from '../fixtures.js';

const seed = benchSeed();
const [restaurant] = seed.restaurants;
const [employee] = seed.employees;
if (restaurant === undefined || employee === undefined) throw new Error('empty seed');

/** The answers: the restaurant, an archived employee (DELETE), an unarchived one (PUT). */
export const BODIES = {
  restaurant: toRestaurantBody(restaurant),
  archived: toEmployeeBody({ ...employee, deleted: true, deletedDate: employee.modifiedDate }),
  live: toEmployeeBody(employee),
};

/** The paths, in each framework's parameter syntax. */
export const ROUTES = {
  getRestaurant: '/restaurants/v1/restaurants/:restaurantGUID',
  archiveEmployee: '/labor/v1/employees/:employeeId',
  unarchiveEmployee: '/labor/v1/employees/:employeeId/unarchive',
} as const;

/** The scope each operation requires (the spec's `security`). */
export const SCOPE = {
  getRestaurant: 'restaurants:read',
  archiveEmployee: 'labor.employees:write',
  unarchiveEmployee: 'labor.employees:write',
} as const;

export const JSON_TYPE = 'application/json; charset=utf-8';

const secret = new TextEncoder().encode(BENCH_SECRET);

/**
 * The bearer check of a hand-written peer, per request: jose's `jwtVerify` (HS256, `iss`, `aud`,
 * `exp`), then the operation's scope and the context restaurant, as the spec requires. 200 when
 * the request may go on, else the status to answer.
 */
export async function checkBearer(
  authorization: string | undefined,
  context: string | undefined,
  scope: string,
): Promise<200 | 401 | 403> {
  if (authorization === undefined || !authorization.startsWith('Bearer ')) return 401;
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(authorization.slice('Bearer '.length), secret, {
      algorithms: ['HS256'],
      issuer: BENCH_ISSUER,
      audience: BENCH_AUDIENCE,
    }));
  } catch {
    return 401;
  }
  const scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
  const restaurants = Array.isArray(payload.restaurants) ? payload.restaurants : [];
  const allowed =
    scopes.includes(scope) &&
    context !== undefined &&
    (restaurants.includes('*') || restaurants.includes(context.toLowerCase()));
  return allowed ? 200 : 403;
}

/** A peer, listening: its port, and how to stop it. */
export interface Listening {
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on a free port of 127.0.0.1. */
export function listen(server: Server): Promise<Listening> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error('no port'));
      resolve({
        port: address.port,
        close: () => new Promise((closed) => server.close(() => closed())),
      });
    });
  });
}
