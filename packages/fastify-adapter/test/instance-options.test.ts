// The plugin asks nothing of the Fastify instance: it serves on a plain Fastify(), and the
// instance's options change nothing of the API (router options, maxParamLength, exposeHeadRoutes,
// trustProxy, bodyLimit). What the instance does decide before any plugin runs, and the plugin's
// TSDoc says: a path that does not percent-decode (Fastify's 400, or the host's frameworkErrors),
// and the HTTP methods it routes.
import { aShift, aWorld, type World } from '@workforce-kit/core/testing';
import type { ApiOptions } from '@workforce-kit/http';
import { problemStatus } from '@workforce-kit/http/adapter';
import { testApiOptions, tokenFor } from '@workforce-kit/http/testing';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendProblem, workforceKit } from '../src/index.js';
import { clientHeaders, expectHostAnswer, expectProblem } from './harness.js';

const world = aWorld();
const token = await tokenFor([world.restaurant.guid]);
const as = (more: Record<string, string> = {}) => clientHeaders(token, world, more);
const restaurantPath = `/restaurants/v1/restaurants/${world.restaurant.guid}`;
const shiftPath = `/labor/v1/shifts/${world.shift.guid}`;
const UNDECODABLE_SHIFT = '/labor/v1/shifts/AUTH%3A%E0%A4%A';
const UNDECODABLE_RESTAURANT = '/restaurants/v1/restaurants/%E0%A4%A';

const started: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.close()));
});

/** A Fastify instance of `options` (the host's `before` it) with the plugin registered, ready. */
async function appWith(
  options: FastifyServerOptions,
  before?: (app: FastifyInstance) => void,
  overrides: Partial<ApiOptions> = {},
  records: World = world,
): Promise<FastifyInstance> {
  const app = Fastify(options);
  started.push(app);
  before?.(app);
  await app.register(workforceKit, testApiOptions(records.seed, overrides));
  await app.ready();
  return app;
}

describe('a plain Fastify() instance', () => {
  it('serves the API with no option', async () => {
    const app = Fastify();
    started.push(app);
    await app.register(workforceKit, testApiOptions(world.seed));
    const res = await app.inject({ url: restaurantPath, headers: as() });
    expect([res.statusCode, res.json().guid]).toEqual([200, world.restaurant.guid]);
  });
});

describe("the router's maxParamLength", () => {
  // The longest identifier: a 16-character naming authority, ':', and 256 characters that each
  // take two UTF-16 units (529 in all; 3,089 once percent-encoded).
  const longest = `SCHEDULER_SHIFTS:${'🍕'.repeat(256)}`;

  it.each([
    ["Fastify's default", {}],
    ['100', { routerOptions: { maxParamLength: 100 } }],
    ['one short of the longest identifier', { routerOptions: { maxParamLength: 528 } }],
    ['1', { routerOptions: { maxParamLength: 1 } }],
  ])('does not keep the longest identifier from its operation (%s)', async (_name, options) => {
    expect(longest).toHaveLength(529);
    const records = aWorld();
    const shift = aShift(records.restaurant.guid, {
      externalId: longest as NonNullable<ReturnType<typeof aShift>['externalId']>,
    });
    const app = await appWith(
      options,
      undefined,
      {},
      {
        ...records,
        seed: { ...records.seed, shifts: [shift] },
      },
    );
    const res = await app.inject({
      method: 'DELETE',
      url: `/labor/v1/shifts/${encodeURIComponent(longest)}`,
      headers: clientHeaders(await tokenFor([records.restaurant.guid]), records),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ guid: shift.guid, deleted: true });
  });
});

describe("the host's router options", () => {
  /** Options that make Fastify route more paths to a route than the API's own routing does. */
  const lenient = {
    routerOptions: {
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
    const app = await appWith({ exposeHeadRoutes: false }, (host) =>
      host.get('/healthz', async () => ({ ok: true })),
    );
    expect((await app.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(404);
    const [get, head] = [
      await app.inject({ method: 'GET', url: restaurantPath, headers: as() }),
      await app.inject({ method: 'HEAD', url: restaurantPath, headers: as() }),
    ];
    expect([get.statusCode, head.statusCode]).toEqual([200, 200]);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.body).toBe('');
  });

  it('do not make the rate limits trust a forwarded address (trustProxy)', async () => {
    const app = await appWith({ trustProxy: true }, undefined, {
      rateLimit: { perSecond: 1, per15Minutes: 100 },
    });
    // No context: counted by the client's address, which is the socket's, as in Express.
    const statuses = [];
    for (const forwarded of ['203.0.113.1', '203.0.113.2']) {
      const res = await app.inject({
        url: restaurantPath,
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': forwarded },
      });
      statuses.push(res.statusCode);
    }
    expect(statuses).toEqual([400, 429]);
  });

  it.each([
    ['at the root', ''],
    ['under a prefix', '/api'],
  ])('do not widen the API %s: its paths are matched as sent', async (_name, prefix) => {
    const events: unknown[] = [];
    const app = Fastify(lenient);
    started.push(app);
    await app.register(workforceKit, {
      prefix,
      ...testApiOptions(world.seed, { onEvent: (event) => void events.push(event) }),
    });
    const guid = world.shift.guid;
    const shift = `${prefix}${shiftPath}`;
    // Under the API's prefixes, but not an operation's path as sent: the API's 404.
    for (const path of [`${shiftPath}/`, `/labor/v1//shifts/${guid}`, `/labor/v1/SHIFTS/${guid}`]) {
      const res = await app.inject({ method: 'DELETE', url: `${prefix}${path}`, headers: as() });
      expectProblem(res, 404, 'NOT_FOUND');
    }
    // Not under the API's prefixes as sent (another case, a doubled slash): the host's 404.
    for (const url of [
      shift.toUpperCase(),
      `${prefix}/Labor/v1/shifts/${guid}`,
      `/${shift}`,
      `${prefix}/labor//v1/shifts/${guid}`,
      ...(prefix === '' ? [] : [`/API${shiftPath}`, `${prefix}/${shiftPath}`]),
    ]) {
      expectHostAnswer(await app.inject({ method: 'DELETE', url, headers: as() }), 404);
    }
    // None of them deleted the shift; its own path does.
    expect(events).toEqual([]);
    const deleted = await app.inject({ method: 'DELETE', url: shift, headers: as() });
    expect(deleted.json()).toMatchObject({ guid, deleted: true });
    await vi.waitFor(() => expect(events).toEqual([expect.objectContaining({ shiftGuid: guid })]));
  });
});

describe('the body', () => {
  it.each([
    ['an empty Content-Type', ''],
    ['a Content-Type that does not parse', 'no such type;;='],
    ['a Content-Type Fastify has no parser for', 'application/x-unknown'],
  ])(
    'is not parsed by Fastify: %s on an operation without a body is no 415',
    async (_name, type) => {
      const app = await appWith({});
      const get = await app.inject({
        method: 'GET',
        url: restaurantPath,
        headers: as({ 'content-type': type }),
        payload: 'x',
      });
      expect(get.statusCode, get.body).toBe(200);
      const deleted = await app.inject({
        method: 'DELETE',
        url: `/labor/v1/shifts/${aWorld().shift.guid}`,
        headers: as({ 'content-type': type }),
        payload: 'x',
      });
      expectProblem(deleted, 404, 'SHIFT_NOT_FOUND');
    },
  );

  it("is read by the API, within the API's body limit and not the instance's bodyLimit", async () => {
    const records = aWorld();
    const app = await appWith({ bodyLimit: 10 }, undefined, { bodyLimitBytes: 200 }, records);
    const path = `/labor/v1/employees/${records.archivedEmployee.guid}/unarchive`;
    const headers = clientHeaders(await tokenFor([records.restaurant.guid]), records, {
      'content-type': 'application/json',
    });
    const tooLarge = await app.inject({
      method: 'PUT',
      url: path,
      headers,
      payload: JSON.stringify({ pad: 'x'.repeat(200) }),
    });
    expectProblem(tooLarge, 413, 'PAYLOAD_TOO_LARGE');
    const notJson = await app.inject({ method: 'PUT', url: path, headers, payload: '{"pad":' });
    expectProblem(notJson, 400, 'MALFORMED_JSON');
    const text = await app.inject({
      method: 'PUT',
      url: path,
      headers: { ...headers, 'content-type': 'text/plain' },
      payload: '{}',
    });
    expectProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const taken = await app.inject({
      method: 'PUT',
      url: path,
      headers,
      payload: JSON.stringify({ pad: 'x'.repeat(100) }),
    });
    expect(taken.statusCode, taken.body).toBe(200);
    expect(taken.json()).toMatchObject({ guid: records.archivedEmployee.guid, deleted: false });
  });
});

describe('a path that does not percent-decode', () => {
  it("is Fastify's own 400 on an instance without frameworkErrors, before any of the API (documented)", async () => {
    const app = await appWith({});
    for (const [method, url] of [
      ['DELETE', UNDECODABLE_SHIFT],
      ['GET', UNDECODABLE_RESTAURANT],
    ] as const) {
      const res = await app.inject({ method, url, headers: as() });
      expectHostAnswer(res, 400);
      expect(res.json()).toMatchObject({ code: 'FST_ERR_BAD_URL' });
    }
  });

  it("is the host's to answer with the instance's frameworkErrors", async () => {
    const app = await appWith({
      frameworkErrors: (error, request, reply) => {
        if (error.code !== 'FST_ERR_BAD_URL') throw error;
        sendProblem(request, reply, {
          code: 'VALIDATION_FAILED',
          detail: 'The path is not valid percent-encoding.',
        });
      },
    });
    const res = await app.inject({ method: 'DELETE', url: UNDECODABLE_SHIFT, headers: as() });
    expectProblem(res, problemStatus('VALIDATION_FAILED'), 'VALIDATION_FAILED');
    expect(res.json()).toMatchObject({
      detail: 'The path is not valid percent-encoding.',
      instance: UNDECODABLE_SHIFT,
    });
  });
});

describe('HTTP methods', () => {
  it("answers 405 to every method the instance routes (TRACE too), as the instance's own", async () => {
    const app = await appWith({});
    for (const method of ['TRACE', 'GET', 'OPTIONS'] as const) {
      const res = await app.inject({ method, url: shiftPath });
      expect([res.statusCode, res.headers.allow]).toEqual([405, 'DELETE']);
    }
  });

  it("leaves a method the instance does not route to the host's 404, unless the host adds it first (documented)", async () => {
    const plain = await appWith({});
    expectHostAnswer(await plain.inject({ method: 'SEARCH', url: shiftPath }), 404);

    const added = await appWith({}, (app) => app.addHttpMethod('SEARCH'));
    const known = await added.inject({ method: 'SEARCH', url: shiftPath });
    expectProblem(known, 405, 'METHOD_NOT_ALLOWED');
    expect(known.headers.allow).toBe('DELETE');
  });
});
