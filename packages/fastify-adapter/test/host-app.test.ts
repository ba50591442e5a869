// The Fastify plugin in a host app, through app.inject: registered under a prefix among the
// host's own routes, and encapsulated (its hooks, body parsers, validator compiler, error handler
// and request decorator stay with its routes). What the API answers is the same through every
// adapter and is tested once for all of them, in test/http of the repository.
import Fastify, { type LightMyRequestResponse } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { fastifyOptions, workforceKit } from '../src/index.js';
import { aWorld, CONTEXT, optionsFor, tokenFor } from './harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The status, the problem+json media type, the code, and the request id in body and header. */
function expectProblem(res: LightMyRequestResponse, status: number, code: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.json()).toMatchObject({ status, code, requestId: res.headers['x-request-id'] });
}

/** The host's answer: no problem details, none of the plugin's headers. */
function expectHostAnswer(res: LightMyRequestResponse, status: number): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).not.toMatch(/problem\+json/);
  expect(res.headers['x-request-id']).toBeUndefined();
  expect(res.headers['cache-control']).toBeUndefined();
}

const world = aWorld();
const app = Fastify(fastifyOptions);
app.get('/elsewhere-before', async () => ({ host: 'before' }));
await app.register(workforceKit, { prefix: '/api', ...optionsFor(world) });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/api/host-only', async () => ({ host: 'after, under the prefix' }));
// Host routes that would answer otherwise if the plugin's parsers, validator compiler, error
// handler or decorator reached them.
app.post(
  '/host/echo',
  { schema: { body: { type: 'object', properties: { n: { type: 'integer' } } } } },
  async (request) => ({
    body: request.body,
    decorated: (request as unknown as Record<string, unknown>).workforceKit !== undefined,
  }),
);
app.post('/host/text', async (request) => ({ text: request.body }));
app.get('/host/boom', async () => {
  throw new Error('host failure');
});
await app.ready();
afterAll(() => app.close());

const token = await tokenFor([world.restaurant.guid]);
const as = (headers: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  [CONTEXT]: world.restaurant.guid,
  ...headers,
});
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

  it('finds the path parameters after the prefix: empty, undecodable, as long as they come', async () => {
    const empty = await app.inject({
      method: 'DELETE',
      url: '/api/labor/v1/shifts/',
      headers: as(),
    });
    expectProblem(empty, 404, 'NOT_FOUND');
    const undecodable = await app.inject({
      method: 'DELETE',
      url: '/api/labor/v1/shifts/AUTH%3A%E0%A4%A',
      headers: as(),
    });
    expectProblem(undecodable, 400, 'VALIDATION_FAILED');
    expect(undecodable.json()).toMatchObject({
      instance: '/api/labor/v1/shifts/AUTH%3A%E0%A4%A',
      errors: [{ path: '/params/shiftId', message: 'is not valid percent-encoding' }],
    });
    const long = `SCHEDULER_SHIFTS:${'🍕'.repeat(256)}`;
    const notFound = await app.inject({
      method: 'DELETE',
      url: `/api/labor/v1/shifts/${encodeURIComponent(long)}`,
      headers: as(),
    });
    expectProblem(notFound, 404, 'SHIFT_NOT_FOUND');
  });
});

describe("the plugin's encapsulation", () => {
  it("leaves the host's JSON to Fastify's own parser and validator", async () => {
    // The plugin's validators coerce nothing but query values; Fastify's own coerce body values.
    const res = await app.inject({
      method: 'POST',
      url: '/host/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ n: '5', pad: 'x'.repeat(20 * 1024) }),
    });
    expectHostAnswer(res, 200);
    // Past the plugin's 16 KiB body limit, and coerced.
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

  it("decorates only the plugin's requests", async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/host/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
    expect(res.json()).toEqual({ body: {}, decorated: false });
  });
});
