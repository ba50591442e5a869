// A benchmark target, started by http-bench.ts: `tsx server.ts <mode>`.
// full, full-pglite, full-postgres: createRouter (auth + validation + core) over the memory store,
// PGlite, or the PostgreSQL server at DATABASE_URL; bare: a plain Express 5 route answering the
// same body. Prints the port when listening.
import { PGlite } from '@electric-sql/pglite';
import { createMemoryStore, type WorkforceStore } from '@workforce-kit/core';
import {
  createJwtVerifier,
  createRouter,
  toEmployeeBody,
  toRestaurantBody,
} from '@workforce-kit/express-adapter';
import { createPostgresStore } from '@workforce-kit/postgres';
import express from 'express';
import pg from 'pg';
import { BENCH_SECRET, benchSeed } from './fixtures.js';

const mode = process.argv[2];
const seed = benchSeed();
const app = express();

/** The store of a full-stack mode: `full` (memory), `full-pglite`, `full-postgres` (DATABASE_URL). */
async function storeFor(name: string): Promise<WorkforceStore> {
  if (name === 'full') return createMemoryStore(seed);
  const client =
    name === 'full-pglite'
      ? await PGlite.create()
      : new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  const store = await createPostgresStore({ client, ownsClient: true });
  (await store.seed(seed))._unsafeUnwrap();
  return store;
}

if (mode?.startsWith('full')) {
  const router = createRouter({
    store: await storeFor(mode),
    auth: createJwtVerifier({ hs256Secret: BENCH_SECRET }),
    // The limiter runs on every request; its limits are raised so that the load is not refused.
    rateLimit: { perSecond: 1e9, per15Minutes: 1e12 },
  });
  app.use(router);
  await router.ready;
} else if (mode === 'bare') {
  const [restaurant] = seed.restaurants;
  const [employee] = seed.employees;
  if (restaurant === undefined || employee === undefined) throw new Error('empty seed');
  const restaurantBody = toRestaurantBody(restaurant);
  const archived = toEmployeeBody({
    ...employee,
    deleted: true,
    deletedDate: employee.modifiedDate,
  });
  const live = toEmployeeBody(employee);
  app.get('/restaurants/v1/restaurants/:restaurantGUID', (_req, res) => {
    res.json(restaurantBody);
  });
  app.delete('/labor/v1/employees/:employeeId', (_req, res) => {
    res.json(archived);
  });
  app.put('/labor/v1/employees/:employeeId/unarchive', (_req, res) => {
    res.json(live);
  });
} else {
  throw new Error(`unknown mode ${mode}`);
}

const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
