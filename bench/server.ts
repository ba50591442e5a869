// A benchmark target, started by http-bench.ts: `tsx server.ts <mode>`.
// full, full-pglite, full-postgres: createRouter (auth + validation + core) over the memory store,
// PGlite, or the PostgreSQL server at DATABASE_URL; bare: a plain Express 5 route answering the
// same body. node: the node:http handler over the memory store. fastify: the Fastify plugin over the memory store; fastify-reference: a hand-written
// Fastify app with the same routes, their JSON schemas and a jose verification per request,
// answering the same body (what the plugin should beat). Prints the port when listening.
import { createServer } from 'node:http';
import { PGlite } from '@electric-sql/pglite';
import { createMemoryStore, type WorkforceStore } from '@workforce-kit/core';
import {
  createJwtVerifier,
  createRouter,
  toEmployeeBody,
  toRestaurantBody,
} from '@workforce-kit/express-adapter';
import { workforceKit } from '@workforce-kit/fastify-adapter';
import { createRequestHandler } from '@workforce-kit/node-adapter';
import { createPostgresStore } from '@workforce-kit/postgres';
import express from 'express';
import Fastify from 'fastify';
import { jwtVerify } from 'jose';
import pg from 'pg';
import { BENCH_SECRET, benchSeed } from './fixtures.js';

const mode = process.argv[2];
const seed = benchSeed();
const app = express();
const [restaurant] = seed.restaurants;
const [employee] = seed.employees;
if (restaurant === undefined || employee === undefined) throw new Error('empty seed');
const restaurantBody = toRestaurantBody(restaurant);
const archivedBody = toEmployeeBody({
  ...employee,
  deleted: true,
  deletedDate: employee.modifiedDate,
});
const liveBody = toEmployeeBody(employee);
/** The limiter runs on every request; its limits are raised so that the load is not refused. */
const UNLIMITED = { perSecond: 1e9, per15Minutes: 1e12 };

function announce(port: number): void {
  process.stdout.write(`${JSON.stringify({ port })}\n`);
}

/** The store of a full-stack mode: `full` (memory), `full-pglite`, `full-postgres` (DATABASE_URL). */
async function storeFor(name: string): Promise<WorkforceStore> {
  if (name === 'full') return createMemoryStore(seed);
  const client =
    name === 'full-pglite'
      ? await PGlite.create()
      : new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  // PGlite as the reference server runs it: the store is its only writer.
  const store = await createPostgresStore({
    client,
    ownsClient: true,
    soleWriter: name === 'full-pglite',
  });
  (await store.seed(seed))._unsafeUnwrap();
  return store;
}

if (mode === 'node') {
  const handler = createRequestHandler({
    store: createMemoryStore(seed),
    auth: createJwtVerifier({ hs256Secret: BENCH_SECRET }),
    rateLimit: UNLIMITED,
  });
  const server = createServer(handler).listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    announce(address.port);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
} else if (mode?.startsWith('fastify')) {
  const fastify = Fastify();
  if (mode === 'fastify') {
    await fastify.register(workforceKit, {
      store: createMemoryStore(seed),
      auth: createJwtVerifier({ hs256Secret: BENCH_SECRET }),
      rateLimit: UNLIMITED,
    });
  } else if (mode === 'fastify-reference') {
    const secret = new TextEncoder().encode(BENCH_SECRET);
    // An unarchive carries Content-Type: application/json and no body.
    fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) =>
      done(null, body === '' ? undefined : JSON.parse(body as string)),
    );
    const guid = { type: 'string', format: 'uuid' };
    const headers = {
      type: 'object',
      properties: { authorization: { type: 'string' }, 'platform-restaurant-external-id': guid },
      required: ['authorization', 'platform-restaurant-external-id'],
    };
    const verified = async (authorization: string | undefined) =>
      jwtVerify((authorization ?? '').replace(/^Bearer /, ''), secret, { algorithms: ['HS256'] });
    const route = (method: 'GET' | 'DELETE' | 'PUT', url: string, param: string, body: object) =>
      fastify.route({
        method,
        url,
        schema: {
          params: { type: 'object', properties: { [param]: { type: 'string' } } },
          headers,
        },
        handler: async (request) => {
          await verified(request.headers.authorization);
          return body;
        },
      });
    route('GET', '/restaurants/v1/restaurants/:restaurantGUID', 'restaurantGUID', restaurantBody);
    route('DELETE', '/labor/v1/employees/:employeeId', 'employeeId', archivedBody);
    route('PUT', '/labor/v1/employees/:employeeId/unarchive', 'employeeId', liveBody);
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  await fastify.listen({ port: 0, host: '127.0.0.1' });
  const address = fastify.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  announce(address.port);
  process.on('SIGTERM', () => void fastify.close().then(() => process.exit(0)));
} else {
  if (mode?.startsWith('full')) {
    app.use(
      createRouter({
        store: await storeFor(mode),
        auth: createJwtVerifier({ hs256Secret: BENCH_SECRET }),
        rateLimit: UNLIMITED,
      }),
    );
  } else if (mode === 'bare') {
    app.get('/restaurants/v1/restaurants/:restaurantGUID', (_req, res) => {
      res.json(restaurantBody);
    });
    app.delete('/labor/v1/employees/:employeeId', (_req, res) => {
      res.json(archivedBody);
    });
    app.put('/labor/v1/employees/:employeeId/unarchive', (_req, res) => {
      res.json(liveBody);
    });
  } else {
    throw new Error(`unknown mode ${mode}`);
  }
  const server = app.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    announce(address.port);
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
