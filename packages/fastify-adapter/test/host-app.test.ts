// The Fastify plugin in a host app, through app.inject: registered under a prefix among the
// host's own routes, encapsulated (the host's body parsers, validation and error handler stay the
// host's), its fastify-plugin name, the host's hooks around it, and the host's CORS plugin before
// it. What the API answers is the same through every adapter and is tested once for all of them,
// in test/http of the repository.
import fastifyCors from '@fastify/cors';
import { aWorld } from '@workforce-kit/core/testing';
import { RESTAURANT_HEADER, testApiOptions, tokenFor } from '@workforce-kit/http/testing';
import Fastify from 'fastify';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { requestIds, workforceKit } from '../src/index.js';
import { clientHeaders, expectHostAnswer, expectProblem } from './harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const PLUGIN_NAME = '@workforce-kit/fastify-adapter';

const world = aWorld();
const app = Fastify();
app.get('/elsewhere-before', async () => ({ host: 'before' }));
await app.register(workforceKit, { prefix: '/api', ...testApiOptions(world.seed) });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/api/host-only', async () => ({ host: 'after, under the prefix' }));
// Host routes that would answer otherwise if the plugin changed the host's body parsers,
// validation or error handler.
app.post(
  '/host/echo',
  { schema: { body: { type: 'object', properties: { n: { type: 'integer' } } } } },
  async (request) => ({ body: request.body }),
);
app.post('/host/text', async (request) => ({ text: request.body }));
app.get('/host/boom', async () => {
  throw new Error('host failure');
});
await app.ready();
afterAll(() => app.close());

// A host app with a CORS plugin before the API's. The methods are said: @fastify/cors allows only
// GET, HEAD and POST by default.
const FRONT = 'http://front.example';
const corsApp = Fastify();
await corsApp.register(fastifyCors, {
  origin: FRONT,
  methods: ['GET', 'HEAD', 'PUT', 'DELETE'],
  exposedHeaders: ['X-Request-Id'],
});
await corsApp.register(workforceKit, { prefix: '/api', ...testApiOptions(world.seed) });
afterAll(() => corsApp.close());

const token = await tokenFor([world.restaurant.guid]);
const as = (more: Record<string, string> = {}) => clientHeaders(token, world, more);
const restaurantPath = `/restaurants/v1/restaurants/${world.restaurant.guid}`;

describe('registered under a prefix in a host app', () => {
  it('serves the operations under the prefix', async () => {
    const res = await app.inject({ url: `/api${restaurantPath}`, headers: as() });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().guid).toBe(world.restaurant.guid);
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('changes state under the prefix (a PUT with its body, validated)', async () => {
    const res = await app.inject({
      method: 'PUT',
      url: `/api/labor/v1/employees/${world.archivedEmployee.guid}/unarchive`,
      headers: as({ 'content-type': 'application/json' }),
      payload: '{}',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ guid: world.archivedEmployee.guid, deleted: false });
  });

  it('leaves the host routes before and after it alone', async () => {
    const before = await app.inject({ url: '/elsewhere-before' });
    const health = await app.inject({ url: '/healthz' });
    const underPrefix = await app.inject({ url: '/api/host-only' });
    for (const res of [before, health, underPrefix]) expectHostAnswer(res, 200);
    expect(health.json()).toEqual({ status: 'ok' });
    expect(underPrefix.json()).toEqual({ host: 'after, under the prefix' });
  });

  it.each([
    ['a path outside the prefix', '/elsewhere'],
    ['a path under the prefix but outside the API', '/api/elsewhere'],
    ['an API path without the prefix', '/labor/v1/nope'],
    ['an API path in another case', '/api/LABOR/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d'],
  ])("sends %s to the host's own 404", async (_name, url) => {
    expectHostAnswer(await app.inject({ url }), 404);
  });

  it('answers an unknown path under the API prefixes with a NOT_FOUND problem', async () => {
    const res = await app.inject({ url: '/api/labor/v1/nope' });
    expectProblem(res, 404, 'NOT_FOUND');
    expect(res.json().instance).toBe('/api/labor/v1/nope');
  });

  it('finds the path parameters after the prefix: an empty one, one as long as they come', async () => {
    const empty = await app.inject({
      method: 'DELETE',
      url: '/api/labor/v1/shifts/',
      headers: as(),
    });
    expectProblem(empty, 404, 'NOT_FOUND');
    const long = `SCHEDULER_SHIFTS:${'🍕'.repeat(256)}`;
    const notFound = await app.inject({
      method: 'DELETE',
      url: `/api/labor/v1/shifts/${encodeURIComponent(long)}`,
      headers: as(),
    });
    expectProblem(notFound, 404, 'SHIFT_NOT_FOUND');
  });
});

describe("behind the host's CORS plugin (@fastify/cors)", () => {
  it("has its preflights answered 204 by the plugin's hook, whatever the API's methods", async () => {
    // Without it the API answers these 405 (its method table has no OPTIONS).
    for (const [method, path] of [
      ['GET', restaurantPath],
      ['PUT', `/labor/v1/employees/${world.archivedEmployee.guid}/unarchive`],
    ] as const) {
      const res = await corsApp.inject({
        method: 'OPTIONS',
        url: `/api${path}`,
        headers: {
          origin: FRONT,
          'access-control-request-method': method,
          'access-control-request-headers': `authorization,${RESTAURANT_HEADER}`,
        },
      });
      expect(res.statusCode, method).toBe(204);
      expect(res.headers['access-control-allow-origin'], method).toBe(FRONT);
      expect(res.headers['access-control-allow-methods'], method).toContain(method);
      expect(res.headers['access-control-allow-headers'], method).toBe(
        `authorization,${RESTAURANT_HEADER}`,
      );
    }
  });

  it("carries the plugin's headers on the API's answers, a refusal's too", async () => {
    const found = await corsApp.inject({
      url: `/api${restaurantPath}`,
      headers: as({ origin: FRONT }),
    });
    expect(found.statusCode).toBe(200);
    expect(found.headers['access-control-allow-origin']).toBe(FRONT);
    expect(found.headers['access-control-expose-headers']).toBe('X-Request-Id');
    const refused = await corsApp.inject({
      url: `/api${restaurantPath}`,
      headers: { origin: FRONT },
    });
    expectProblem(refused, 401, 'INVALID_TOKEN');
    expect(refused.headers['access-control-allow-origin']).toBe(FRONT);
  });
});

describe('the plugin as a Fastify plugin', () => {
  it('is named for the host (fastify-plugin metadata) and made for Fastify 5', () => {
    expect(app.hasPlugin(PLUGIN_NAME)).toBe(true);
    expect(Reflect.get(workforceKit, Symbol.for('fastify.display-name'))).toBe(PLUGIN_NAME);
    expect(Reflect.get(workforceKit, Symbol.for('plugin-meta'))).toMatchObject({
      name: PLUGIN_NAME,
      fastify: '5.x',
    });
  });

  it("leaves the host's JSON to Fastify's own parser and validator", async () => {
    // Fastify's validator coerces the host's body values; its parser takes more than the API's
    // 16 KiB body limit.
    const res = await app.inject({
      method: 'POST',
      url: '/host/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ n: '5', pad: 'x'.repeat(20 * 1024) }),
    });
    expectHostAnswer(res, 200);
    expect(res.json().body.n).toBe(5);
    expect(res.json().body.pad).toHaveLength(20 * 1024);
  });

  it("leaves the host's other body parsers in place", async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/host/text',
      headers: { 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expectHostAnswer(res, 200);
    expect(res.json()).toEqual({ text: 'hello' });
  });

  it("leaves the host's errors to the host's error handler", async () => {
    const res = await app.inject({ url: '/host/boom' });
    expectHostAnswer(res, 500);
    expect(res.json()).toMatchObject({ statusCode: 500, message: 'host failure' });
  });
});

describe("the host's hooks around the plugin", () => {
  const hosts: ReturnType<typeof Fastify>[] = [];
  afterEach(async () => {
    await Promise.all(hosts.splice(0).map((host) => host.close()));
  });

  it("keeps the request id the host's requestIds hook gave", async () => {
    const host = Fastify();
    hosts.push(host);
    const given: unknown[] = [];
    host.addHook('onRequest', requestIds);
    host.addHook('onRequest', async (_request, reply) => {
      given.push(reply.getHeader('x-request-id'));
    });
    await host.register(workforceKit, testApiOptions(world.seed));
    const ok = await host.inject({ url: restaurantPath, headers: as() });
    const problem = await host.inject({ url: restaurantPath });
    expect([ok.statusCode, problem.statusCode]).toEqual([200, 401]);
    expect(given).toEqual([expect.stringMatching(UUID), expect.stringMatching(UUID)]);
    expect([ok.headers['x-request-id'], problem.headers['x-request-id']]).toEqual(given);
    expect(problem.json().requestId).toBe(given[1]);
  });

  it('runs the onRequest hooks before the plugin, and onSend and onResponse after it', async () => {
    const host = Fastify();
    hosts.push(host);
    const seen: string[] = [];
    const events: unknown[] = [];
    host.addHook('onRequest', async (request, reply) => {
      seen.push(`onRequest ${request.method}`);
      // A host's maintenance switch: answered here, the API never sees the request.
      if (request.headers['x-maintenance'] === 'on') {
        return reply.code(503).send({ maintenance: true });
      }
    });
    host.addHook('onSend', async (_request, reply, payload) => {
      seen.push(`onSend ${reply.statusCode} ${String(payload).slice(0, 8)}`);
      reply.header('x-host-on-send', 'yes');
    });
    host.addHook('onResponse', async (request, reply) => {
      seen.push(`onResponse ${reply.statusCode}`);
      // The request's headers as the client sent them: the plugin takes none away.
      seen.push(`headers ${request.headers['content-type']} ${request.headers['content-length']}`);
    });
    await host.register(workforceKit, {
      ...testApiOptions(world.seed),
      onEvent: (event) => void events.push(event),
    });
    const shiftPath = `/labor/v1/shifts/${world.shift.guid}`;

    const held = await host.inject({
      method: 'DELETE',
      url: shiftPath,
      headers: as({ 'x-maintenance': 'on' }),
    });
    expect([held.statusCode, held.json()]).toEqual([503, { maintenance: true }]);

    const deleted = await host.inject({
      method: 'DELETE',
      url: shiftPath,
      headers: as({ 'content-type': 'application/json' }),
      payload: '{}',
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.headers['x-host-on-send']).toBe('yes');
    await vi.waitFor(() => expect(events).toHaveLength(1));
    expect(seen).toEqual([
      'onRequest DELETE',
      'onSend 503 {"mainte',
      'onResponse 503',
      'headers undefined undefined',
      'onRequest DELETE',
      'onSend 200 {"guid":',
      'onResponse 200',
      'headers application/json 2',
    ]);
  });
});
