// What the plugin needs of the Fastify instance, which a plugin cannot set itself: rewriteUrl
// (a path that does not percent-decode), a router maxParamLength that fits the longest
// identifier, and the HTTP methods the instance routes. fastifyOptions gives the first two.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  fastifyOptions,
  LONGEST_PATH_PARAMETER,
  rewriteUrl,
  type WorkforceKitOptions,
  workforceKit,
} from '../src/index.js';
import { aWorld, CONTEXT, optionsFor, tokenFor } from './harness.js';

const world = aWorld();
const token = await tokenFor([world.restaurant.guid]);
const as = { authorization: `Bearer ${token}`, [CONTEXT]: world.restaurant.guid };
const UNDECODABLE_SHIFT = '/labor/v1/shifts/AUTH%3A%E0%A4%A';
const UNDECODABLE_RESTAURANT = '/restaurants/v1/restaurants/%E0%A4%A';

const started: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.close()));
});

/** A Fastify instance of `options` with the plugin registered, ready. */
async function appWith(
  options: FastifyServerOptions,
  before?: (app: FastifyInstance) => void,
  overrides: Partial<WorkforceKitOptions> = {},
): Promise<FastifyInstance> {
  const app = Fastify(options);
  started.push(app);
  before?.(app);
  await app.register(workforceKit, { ...optionsFor(world), ...overrides });
  await app.ready();
  return app;
}

describe('fastifyOptions', () => {
  it('holds rewriteUrl, and a maxParamLength past the longest identifier', () => {
    expect(fastifyOptions.rewriteUrl).toBe(rewriteUrl);
    expect(fastifyOptions.routerOptions.maxParamLength).toBeGreaterThanOrEqual(
      LONGEST_PATH_PARAMETER,
    );
  });
});

describe('a path that does not percent-decode', () => {
  it('with rewriteUrl: the token first, then 400 for a constrained parameter, 404 for restaurantGUID', async () => {
    const app = await appWith(fastifyOptions);
    const noToken = await app.inject({ method: 'DELETE', url: UNDECODABLE_SHIFT });
    expect([noToken.statusCode, noToken.json().code]).toEqual([401, 'INVALID_TOKEN']);
    const shift = await app.inject({ method: 'DELETE', url: UNDECODABLE_SHIFT, headers: as });
    expect(shift.json()).toMatchObject({
      status: 400,
      code: 'VALIDATION_FAILED',
      instance: UNDECODABLE_SHIFT,
      errors: [{ path: '/params/shiftId', message: 'is not valid percent-encoding' }],
    });
    const restaurant = await app.inject({ url: UNDECODABLE_RESTAURANT, headers: as });
    expect([restaurant.statusCode, restaurant.json().code]).toEqual([404, 'RESTAURANT_NOT_FOUND']);
  });

  it("without rewriteUrl: Fastify's own 400, before any check of the plugin (documented)", async () => {
    const app = await appWith({ routerOptions: fastifyOptions.routerOptions });
    for (const url of [UNDECODABLE_SHIFT, UNDECODABLE_RESTAURANT]) {
      const res = await app.inject({ method: url === UNDECODABLE_SHIFT ? 'DELETE' : 'GET', url });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).not.toMatch(/problem\+json/);
      expect(res.headers['x-request-id']).toBeUndefined();
    }
  });
});

describe("the router's maxParamLength", () => {
  const longest = `SCHEDULER_SHIFTS:${'🍕'.repeat(256)}`;

  it.each([
    ["Fastify's default (100)", {}],
    ['one short of the longest identifier', { maxParamLength: LONGEST_PATH_PARAMETER - 1 }],
  ])('refuses to register on an instance with %s', async (_name, routerOptions) => {
    const app = Fastify({ routerOptions });
    started.push(app);
    await expect(app.register(workforceKit, optionsFor(world))).rejects.toThrow(
      /does not route a path parameter of 529 characters .* Fastify\(\{ \.\.\.fastifyOptions \}\)/,
    );
  });

  it('registers on an instance whose parameters fit the longest identifier, which then routes', async () => {
    expect(longest.length).toBe(LONGEST_PATH_PARAMETER);
    const app = await appWith({ routerOptions: { maxParamLength: LONGEST_PATH_PARAMETER } });
    const res = await app.inject({
      method: 'DELETE',
      url: `/labor/v1/shifts/${encodeURIComponent(longest)}`,
      headers: as,
    });
    expect([res.statusCode, res.json().code]).toEqual([404, 'SHIFT_NOT_FOUND']);
  });
});

describe("the host's router options", () => {
  /** Options that make Fastify route more paths to a route than Express's strict router does. */
  const lenient = {
    ...fastifyOptions,
    routerOptions: {
      ...fastifyOptions.routerOptions,
      caseSensitive: false,
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
    },
  };

  it("hold for the host's routes", async () => {
    const app = await appWith(lenient, (host) => host.get('/healthz', async () => ({ ok: true })));
    for (const url of ['/healthz', '/healthz/', '//HEALTHZ']) {
      expect((await app.inject({ url })).statusCode, url).toBe(200);
    }
  });

  it('do not take HEAD from the API (exposeHeadRoutes: false)', async () => {
    const app = await appWith({ ...fastifyOptions, exposeHeadRoutes: false }, (host) =>
      host.get('/healthz', async () => ({ ok: true })),
    );
    expect((await app.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(404);
    const url = `/restaurants/v1/restaurants/${world.restaurant.guid}`;
    const [get, head] = [
      await app.inject({ method: 'GET', url, headers: as }),
      await app.inject({ method: 'HEAD', url, headers: as }),
    ];
    expect([get.statusCode, head.statusCode]).toEqual([200, 200]);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.body).toBe('');
  });

  it('do not make the rate limits trust a forwarded address (trustProxy)', async () => {
    const app = await appWith({ ...fastifyOptions, trustProxy: true }, undefined, {
      rateLimit: { perSecond: 1, per15Minutes: 100 },
    });
    // No context: counted by the client's address, which is the socket's, as in Express.
    const statuses = [];
    for (const forwarded of ['203.0.113.1', '203.0.113.2']) {
      const res = await app.inject({
        url: `/restaurants/v1/restaurants/${world.restaurant.guid}`,
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': forwarded },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([400, 429]);
  });

  it('do not widen the API: its paths are matched as Express matches them', async () => {
    const events: unknown[] = [];
    const app = await appWith(lenient, undefined, { onEvent: (event) => void events.push(event) });
    const guid = world.shift.guid;
    const shift = `/labor/v1/shifts/${guid}`;
    // Under the API's prefixes, but not an operation's path as sent: the API's 404.
    for (const url of [
      `${shift}/`,
      `/labor/v1//shifts/${guid}`,
      `/labor/v1/SHIFTS/${guid}`,
      '/labor/v1/nope/',
    ]) {
      const res = await app.inject({ method: 'DELETE', url, headers: as });
      expect([res.statusCode, res.json().code], url).toEqual([404, 'NOT_FOUND']);
    }
    // Not under the API's prefixes as sent (another case, a doubled slash): the host's 404.
    for (const url of [
      shift.toUpperCase(),
      `/Labor/v1/shifts/${guid}`,
      `/${shift}`,
      `/labor//v1/shifts/${guid}`,
    ]) {
      const res = await app.inject({ method: 'DELETE', url, headers: as });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).not.toMatch(/problem\+json/);
      expect(res.headers['x-request-id'], url).toBeUndefined();
    }
    // None of them deleted the shift; its own path does.
    expect(events).toEqual([]);
    const deleted = await app.inject({ method: 'DELETE', url: shift, headers: as });
    expect(deleted.json()).toMatchObject({ guid, deleted: true });
    await vi.waitFor(() => expect(events).toEqual([expect.objectContaining({ shiftGuid: guid })]));
  });
});

describe('HTTP methods', () => {
  const shiftPath = `/labor/v1/shifts/${world.shift.guid}`;

  it("answers 405 to every method the instance routes (TRACE too), as the instance's own", async () => {
    const app = await appWith(fastifyOptions);
    for (const method of ['TRACE', 'GET', 'OPTIONS'] as const) {
      const res = await app.inject({ method, url: shiftPath });
      expect([res.statusCode, res.headers.allow]).toEqual([405, 'DELETE']);
    }
  });

  it("leaves a method the instance does not route to the host's 404, unless the host adds it first (documented)", async () => {
    const plain = await appWith(fastifyOptions);
    const unknown = await plain.inject({ method: 'SEARCH', url: shiftPath });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['x-request-id']).toBeUndefined();

    const added = await appWith(fastifyOptions, (app) => app.addHttpMethod('SEARCH'));
    const known = await added.inject({ method: 'SEARCH', url: shiftPath });
    expect([known.statusCode, known.headers.allow]).toEqual([405, 'DELETE']);
    expect(known.json().code).toBe('METHOD_NOT_ALLOWED');
  });
});
