// The Express router in a host app, over real HTTP (supertest): one middleware, mounted under a
// path among the host's own routes, behind the host's CORS middleware, taking a body the host's
// express.json() already parsed, and the host's routes answering with the router's request ids
// and problems (requestIds, problemHandler). What the API answers is the same through every
// adapter and is tested once for all of them, in test/http of the repository.
import { Writable } from 'node:stream';
import { aWorld, type World } from '@workforce-kit/core/testing';
import { RESTAURANT_HEADER, testApiOptions, tokenFor } from '@workforce-kit/http/testing';
import cors from 'cors';
import express, { type RequestHandler } from 'express';
import { pino } from 'pino';
import request, { type Response } from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { createRouter, problemHandler, requestIds } from '../src/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The status, the problem+json media type, the code, and the request id in body and header. */
function expectProblem(res: Response, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code, requestId: res.headers['x-request-id'] });
}

/** Made once, on first use. */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= make();
    return pending;
  };
}

const restaurantPath = (world: World) => `/restaurants/v1/restaurants/${world.restaurant.guid}`;
const unarchivePath = (guid: string) => `/labor/v1/employees/${guid}/unarchive`;

describe('mounted in a host app', () => {
  const hostApp = once(makeHostApp);

  async function makeHostApp() {
    const world = aWorld();
    const router = createRouter(testApiOptions(world.seed));
    await router.ready;
    const app = express();
    app.get('/elsewhere-before', (_req, res) => {
      res.json({ host: 'before' });
    });
    app.use('/api', router);
    app.get('/healthz', (_req, res) => {
      res.json({ status: 'ok' });
    });
    app.get('/api/host-only', (_req, res) => {
      res.json({ host: 'after, under the prefix' });
    });
    return { app, world, token: await tokenFor([world.restaurant.guid]) };
  }

  it('serves the operations under the prefix', async () => {
    const { app, world, token } = await hostApp();
    const res = await request(app)
      .get(`/api${restaurantPath(world)}`)
      .set('Authorization', `Bearer ${token}`)
      .set(RESTAURANT_HEADER, world.restaurant.guid);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.guid).toBe(world.restaurant.guid);
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('changes state under the prefix (a PUT with its body, validated)', async () => {
    const { app, world, token } = await hostApp();
    const res = await request(app)
      .put(`/api${unarchivePath(world.archivedEmployee.guid)}`)
      .set('Authorization', `Bearer ${token}`)
      .set(RESTAURANT_HEADER, world.restaurant.guid)
      .set('Content-Type', 'application/json')
      .send('{}');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ guid: world.archivedEmployee.guid, deleted: false });
  });

  it('leaves the host routes before and after it alone', async () => {
    const { app } = await hostApp();
    const before = await request(app).get('/elsewhere-before');
    const health = await request(app).get('/healthz');
    const underPrefix = await request(app).get('/api/host-only');
    expect([before.status, health.status, underPrefix.status]).toEqual([200, 200, 200]);
    expect(health.body).toEqual({ status: 'ok' });
    expect(underPrefix.body).toEqual({ host: 'after, under the prefix' });
    expect(health.headers['x-request-id']).toBeUndefined();
  });

  it.each([
    ['a path outside the prefix', '/elsewhere'],
    ['a path under the mount but outside the API', '/api/elsewhere'],
    ['an API path without the mount', '/labor/v1/nope'],
    ['an API path in another case', '/api/LABOR/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d'],
  ])("sends %s to the host's own 404", async (_name, path) => {
    const { app } = await hostApp();
    const res = await request(app).get(path);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).not.toMatch(/problem\+json/);
    expect(res.headers['x-request-id']).toBeUndefined();
  });

  it('answers an unknown path under the API prefixes with a NOT_FOUND problem', async () => {
    const { app } = await hostApp();
    const res = await request(app).get('/api/labor/v1/nope');
    expectProblem(res, 404, 'NOT_FOUND');
    expect(res.body.instance).toBe('/api/labor/v1/nope');
  });
});

describe("behind the host's CORS middleware (cors)", () => {
  const FRONT = 'http://front.example';
  const corsApp = once(async () => {
    const world = aWorld();
    const app = express();
    app.use(cors({ origin: FRONT, exposedHeaders: ['X-Request-Id'] }));
    app.use('/api', createRouter(testApiOptions(world.seed)));
    return { app, world, token: await tokenFor([world.restaurant.guid]) };
  });

  it("has its preflights answered 204 by the middleware, whatever the API's methods", async () => {
    const { app, world } = await corsApp();
    // Without it the API answers these 405 (its method table has no OPTIONS).
    for (const [method, path] of [
      ['GET', restaurantPath(world)],
      ['PUT', unarchivePath(world.archivedEmployee.guid)],
    ] as const) {
      const res = await request(app)
        .options(`/api${path}`)
        .set({
          origin: FRONT,
          'access-control-request-method': method,
          'access-control-request-headers': `authorization,${RESTAURANT_HEADER}`,
        });
      expect(res.status, method).toBe(204);
      expect(res.headers['access-control-allow-origin'], method).toBe(FRONT);
      expect(res.headers['access-control-allow-methods'], method).toContain(method);
      expect(res.headers['access-control-allow-headers'], method).toBe(
        `authorization,${RESTAURANT_HEADER}`,
      );
    }
  });

  it("carries the middleware's headers on the API's answers, a refusal's too", async () => {
    const { app, world, token } = await corsApp();
    const found = await request(app)
      .get(`/api${restaurantPath(world)}`)
      .set({
        origin: FRONT,
        authorization: `Bearer ${token}`,
        [RESTAURANT_HEADER]: world.restaurant.guid,
      });
    expect(found.status).toBe(200);
    expect(found.headers['access-control-allow-origin']).toBe(FRONT);
    expect(found.headers['access-control-expose-headers']).toBe('X-Request-Id');
    const refused = await request(app)
      .get(`/api${restaurantPath(world)}`)
      .set({ origin: FRONT });
    expectProblem(refused, 401, 'INVALID_TOKEN');
    expect(refused.headers['access-control-allow-origin']).toBe(FRONT);
  });
});

describe('the request as the client sent it, mount path included', () => {
  it("is a problem's instance and the request's log line", async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    const world = aWorld();
    const app = express().use(
      '/api',
      createRouter(testApiOptions(world.seed, { logger: pino({ level: 'info' }, sink) })),
    );
    const token = await tokenFor([world.restaurant.guid]);
    const path = `/api${restaurantPath(world)}`;
    const ok = await request(app)
      .get(`${path}?includeArchived=true`)
      .set('Authorization', `Bearer ${token}`)
      .set(RESTAURANT_HEADER, world.restaurant.guid);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const refused = await request(app).get(path);
    expectProblem(refused, 401, 'INVALID_TOKEN');
    expect(refused.body.instance).toBe(path);
    await vi.waitFor(() => expect(lines.filter((line) => line.msg === 'request')).toHaveLength(2));
    expect(lines.filter((line) => line.msg === 'request')).toEqual([
      expect.objectContaining({
        requestId: ok.headers['x-request-id'],
        method: 'GET',
        path: `${path}?includeArchived=true`,
        status: 200,
      }),
      expect.objectContaining({
        requestId: refused.headers['x-request-id'],
        method: 'GET',
        path,
        status: 401,
      }),
    ]);
  });
});

describe("a body the host's express.json() already parsed", () => {
  /** A host app with `parser` before the router, and an unarchive of its archived employee. */
  async function unarchiveAfter(parser: RequestHandler) {
    const world = aWorld();
    const app = express()
      .use(parser)
      .use(createRouter(testApiOptions(world.seed)));
    const token = await tokenFor([world.restaurant.guid]);
    const unarchive = (type: string, body: string) =>
      request(app)
        .put(unarchivePath(world.archivedEmployee.guid))
        .set('Authorization', `Bearer ${token}`)
        .set(RESTAURANT_HEADER, world.restaurant.guid)
        .set('Content-Type', type)
        .send(body);
    return { world, unarchive };
  }

  it('is taken as parsed: the router does not read the request again', async () => {
    // The host's parser, and its limit, decide on the body: past the router's own 16 KiB.
    const { world, unarchive } = await unarchiveAfter(express.json({ limit: '1mb' }));
    const res = await unarchive('application/json', JSON.stringify({ pad: 'x'.repeat(20 * 1024) }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ guid: world.archivedEmployee.guid, deleted: false });
    // A small body too reaches the use case (the employee is no longer archived).
    expectProblem(await unarchive('application/json', '{"a":1}'), 400, 'EMPLOYEE_NOT_ARCHIVED');
  });

  it('still has its media type checked by the router (415)', async () => {
    const { unarchive } = await unarchiveAfter(express.json({ type: () => true }));
    expectProblem(await unarchive('text/plain', '{}'), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});

describe("the host app's own routes, with requestIds and problemHandler", () => {
  it('answer with a request id, and a 500 is logged under the id the client got', async () => {
    const logged: Record<string, unknown>[] = [];
    const logger = { error: (details: object) => logged.push(details as Record<string, unknown>) };
    const app = express();
    app.use(requestIds());
    app.get('/ok', (_req, res) => {
      res.json({ ok: true });
    });
    app.get('/boom', () => {
      throw new Error('SELECT secret FROM pg_shadow');
    });
    app.use(problemHandler({ logger }));

    const ok = await request(app).get('/ok').set('X-Request-Id', 'host-ok-1');
    expect(ok.headers['x-request-id']).toBe('host-ok-1');
    const boom = await request(app).get('/boom');
    expectProblem(boom, 500, 'INTERNAL_ERROR');
    expect(JSON.stringify(boom.body)).not.toContain('pg_shadow');
    expect(logged).toEqual([
      expect.objectContaining({ requestId: boom.headers['x-request-id'], path: '/boom' }),
    ]);
  });
});
