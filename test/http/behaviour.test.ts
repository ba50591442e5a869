// How the API behaves around the operations, over real HTTP (supertest) to each adapter's app,
// with response validation on: request ids and their logs, 404 and 405, HEAD, the order of the
// checks, events, the request timeout, body handling, and what a 500 shows. (Mounting in a host
// app is each adapter's own: see its package's tests.)
import { connect } from 'node:net';
import {
  createMemoryStore,
  type Employee,
  type Guid,
  type MemoryStore,
  type RecordedEvent,
  type Restaurant,
  type Shift,
  type StorageError,
  storageUnavailable,
  toResultAsync,
} from '@workforce-kit/core';
import { anArchivedEmployee, anEmployee, aShift } from '@workforce-kit/core/testing';
import type { ApiOptions, ApiStore } from '@workforce-kit/http';
import { errAsync, ResultAsync } from 'neverthrow';
import request, { type Response, type Test } from 'supertest';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  ADAPTERS,
  type Adapter,
  aWorld,
  closeApps,
  type TestApp,
  testApp,
  tokenFor,
  type World,
} from './support/harness.js';

const CONTEXT = 'Platform-Restaurant-External-ID';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SCOPE_WRITE_EMPLOYEES = 'labor.employees:write';

/** The status, the problem+json media type, the code, and the request id in body and header. */
function expectProblem(res: Response, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code, requestId: res.headers['x-request-id'] });
}

/** A test app over the store `change` makes of a memory store; `store` is that memory store. */
async function appOver(
  adapter: Adapter,
  change: (store: MemoryStore) => ApiStore,
  overrides: Partial<ApiOptions> = {},
): Promise<TestApp> {
  const world = aWorld();
  const memory = createMemoryStore(world.seed);
  const app = await testApp(adapter, { ...overrides, store: change(memory) }, world);
  return { ...app, store: memory };
}

/**
 * Made once, on first use: one app for the tests of a block that only read, or change records no
 * other test reads (apps compile the spec, which is most of a test's time).
 */
function once<T>(make: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= make();
    return pending;
  };
}

const restaurantPath = (world: World) => `/restaurants/v1/restaurants/${world.restaurant.guid}`;
const unarchivePath = (guid: string) => `/labor/v1/employees/${guid}/unarchive`;

const lines = (logs: readonly Record<string, unknown>[], requestId: string) =>
  logs.filter((line) => line.requestId === requestId);

/**
 * A world with `count` more employees (archived or not) and shifts of the restaurant, so that
 * the tests of a block can share one app and still each change records of their own.
 */
function aWorldWithSpares(count: number): World & {
  readonly spareEmployees: readonly Employee[];
  readonly spareArchived: readonly Employee[];
  readonly spareShifts: readonly Shift[];
} {
  const world = aWorld();
  const guid = world.restaurant.guid;
  const spareEmployees = Array.from({ length: count }, () => anEmployee(guid));
  const spareArchived = Array.from({ length: count }, () => anArchivedEmployee(guid));
  const spareShifts = Array.from({ length: count }, () => aShift(guid));
  return {
    ...world,
    spareEmployees,
    spareArchived,
    spareShifts,
    seed: {
      ...world.seed,
      employees: [...world.seed.employees, ...spareEmployees, ...spareArchived],
      shifts: [...world.seed.shifts, ...spareShifts],
    },
  };
}

/** The record at `index` of `records`, which the test data guarantees. */
function at<T>(records: readonly T[], index: number): T {
  const record = records[index];
  if (record === undefined) throw new Error(`no spare record ${index}`);
  return record;
}

afterAll(closeApps);

for (const adapter of ADAPTERS) {
  describe(`${adapter.name}: request ids`, () => {
    const appForIds = once(() => testApp(adapter));

    it('puts a generated X-Request-Id on every response, the problem requestId too', async () => {
      const { url, world } = await appForIds();
      const token = await tokenFor([world.restaurant.guid]);
      const ok = await request(url)
        .get(restaurantPath(world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid);
      const unauthorized = await request(url).get(restaurantPath(world));
      const notFound = await request(url).get('/labor/v1/nope');
      const notAllowed = await request(url).post(restaurantPath(world));

      expect(ok.status).toBe(200);
      const ids = [ok, unauthorized, notFound, notAllowed].map(
        (res) => res.headers['x-request-id'],
      );
      for (const id of ids) expect(id).toMatch(UUID);
      expect(new Set(ids).size).toBe(4);
      expectProblem(unauthorized, 401, 'INVALID_TOKEN');
      expectProblem(notFound, 404, 'NOT_FOUND');
      expectProblem(notAllowed, 405, 'METHOD_NOT_ALLOWED');
    });

    it.each([
      ['a client id', '4f1c2d3e-checkout-retry-2'],
      ['one character', 'x'],
      [
        '128 printable characters, inner spaces and symbols',
        `${'a'.repeat(60)} ~!"#$%&'()*+,-./:;<=>?@[\\]^_\`{|} ${'z'.repeat(32)}`.padEnd(128, 'q'),
      ],
    ])('reuses a sane incoming X-Request-Id: %s', async (_name, id) => {
      expect(id.length).toBeLessThanOrEqual(128);
      const { url, world } = await appForIds();
      const problem = await request(url).get(restaurantPath(world)).set('X-Request-Id', id);
      expectProblem(problem, 401, 'INVALID_TOKEN');
      expect(problem.headers['x-request-id']).toBe(id);
      expect(problem.body.requestId).toBe(id);

      const token = await tokenFor([world.restaurant.guid]);
      const ok = await request(url)
        .get(restaurantPath(world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid)
        .set('X-Request-Id', id);
      expect(ok.status).toBe(200);
      expect(ok.headers['x-request-id']).toBe(id);
    });

    it('reuses an id of exactly 128 characters', async () => {
      const { url, world } = await appForIds();
      const id = 'r'.repeat(128);
      const res = await request(url).get(restaurantPath(world)).set('X-Request-Id', id);
      expect(res.headers['x-request-id']).toBe(id);
    });

    it.each([
      ['129 characters', 'r'.repeat(129)],
      ['a control character (tab)', 'retry\t2'],
      ['a non-ASCII character', 'café-42'],
      ['an empty value', ''],
    ])('replaces an incoming X-Request-Id of %s with a generated one', async (_name, id) => {
      const { url, world } = await appForIds();
      const res = await request(url).get(restaurantPath(world)).set('X-Request-Id', id);
      expectProblem(res, 401, 'INVALID_TOKEN');
      expect(res.headers['x-request-id']).not.toBe(id);
      expect(res.headers['x-request-id']).toMatch(UUID);
    });

    it('puts the request id on every log line of a failing request', async () => {
      const { url, world, logs } = await appOver(adapter, (store) => ({
        ...store,
        restaurants: {
          findByGuid: () =>
            errAsync(storageUnavailable('restaurants.findByGuid', new Error('connection refused'))),
        },
      }));
      const token = await tokenFor([world.restaurant.guid]);
      const res = await request(url)
        .get(restaurantPath(world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid)
        .set('X-Request-Id', 'storage-down-1');

      expectProblem(res, 503, 'STORAGE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('1');
      expect(JSON.stringify(res.body)).not.toContain('connection refused');
      // The access-log line is written when the response closes, which may follow the client's read.
      await vi.waitFor(() => expect(logs.map((line) => line.msg)).toContain('request'));
      expect(logs.length).toBeGreaterThanOrEqual(2);
      for (const line of logs) expect(line.requestId, JSON.stringify(line)).toBe('storage-down-1');
      expect(logs).toContainEqual(
        expect.objectContaining({
          msg: 'StorageUnavailable',
          err: expect.objectContaining({ message: 'connection refused' }),
        }),
      );
      expect(logs).toContainEqual(
        expect.objectContaining({
          msg: 'request',
          status: 503,
          method: 'GET',
          path: restaurantPath(world),
        }),
      );
    });

    it('logs under the generated id when the incoming one is replaced', async () => {
      const { url, world, logs } = await testApp(adapter);
      const res = await request(url)
        .get(restaurantPath(world))
        .set('X-Request-Id', 'r'.repeat(129));
      const id = res.headers['x-request-id'] ?? '';
      await vi.waitFor(() => expect(lines(logs, id).map((line) => line.msg)).toContain('request'));
      expect(logs.every((line) => line.requestId === id)).toBe(true);
    });
  });

  describe(`${adapter.name}: 404 and 405 at the root`, () => {
    const rootApp = once(() => testApp(adapter));

    it.each([
      '/labor/v1/nope',
      '/labor/v1',
      '/restaurants/v1/restaurants',
      '/restaurants/v1/restaurants/',
      '/labor/v1/shifts/SCHEDULER:1/',
      '/labor/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d/unarchive/now',
      '/labor/v1/shifts/',
      '/labor/v1/employees//unarchive',
      '/labor/v1/shifts//',
    ])('answers %s with a NOT_FOUND problem, without a token', async (path) => {
      const { url } = await rootApp();
      const res = await request(url).get(path);
      expectProblem(res, 404, 'NOT_FOUND');
      expect(res.body.instance).toBe(path);
    });

    it.each([
      ['delete', '/labor/v1/shifts/'],
      ['delete', '/labor/v1/employees/'],
      ['put', '/labor/v1/employees//unarchive'],
      ['get', '/restaurants/v1/restaurants/'],
      ['post', '/restaurants/v1/restaurants/'],
    ] as const)(
      'answers %s %s (an empty path parameter) NOT_FOUND, with a valid token too',
      async (method, path) => {
        const { url, world } = await rootApp();
        const token = await tokenFor([world.restaurant.guid]);
        const res = await request(url)
          [method](path)
          .set('Authorization', `Bearer ${token}`)
          .set(CONTEXT, world.restaurant.guid)
          .set('Content-Type', 'application/json');
        expectProblem(res, 404, 'NOT_FOUND');
      },
    );

    it.each([
      '/LABOR/v1/nope',
      '/Labor/v1/employees/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
      '/restaurants/V1/restaurants/6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
      '/labor/v2/shifts/x',
      '/laborx/v1/shifts/x',
    ])('leaves %s (not the API: case matters) to the host', async (path) => {
      const { url } = await rootApp();
      const res = await request(url).get(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).not.toMatch(/problem\+json/);
      expect(res.headers['x-request-id']).toBeUndefined();
    });

    type Method = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'trace';
    const guid = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
    const PATHS: readonly { path: string; allow: string; wrong: readonly Method[] }[] = [
      {
        path: unarchivePath(guid),
        allow: 'PUT',
        wrong: ['get', 'head', 'post', 'patch', 'delete', 'options', 'trace'],
      },
      {
        path: `/labor/v1/employees/${guid}`,
        allow: 'DELETE',
        wrong: ['get', 'head', 'post', 'put', 'patch', 'options', 'trace'],
      },
      {
        path: '/labor/v1/shifts/SCHEDULER:shift-1',
        allow: 'DELETE',
        wrong: ['get', 'head', 'post', 'put', 'patch', 'options', 'trace'],
      },
      {
        path: `/restaurants/v1/restaurants/${guid}`,
        allow: 'GET, HEAD',
        wrong: ['post', 'put', 'patch', 'delete', 'options', 'trace'],
      },
    ];
    const CASES = PATHS.flatMap(({ path, allow, wrong }) =>
      wrong.map((method) => ({ method, path, allow })),
    );

    it.for(CASES)(
      'answers $method $path with 405, Allow: $allow',
      async ({ method, path, allow }) => {
        const { url } = await rootApp();
        const res = await request(url)[method](path);
        expect(res.status).toBe(405);
        expect(res.headers.allow).toBe(allow);
        expect(res.headers['x-request-id']).toMatch(UUID);
        if (method !== 'head') {
          expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
          expect(res.body.detail).toContain(allow);
        }
      },
    );

    it('answers 405 before authentication, even with a bad token', async () => {
      const { url } = await rootApp();
      const res = await request(url)
        .patch(`/labor/v1/employees/${guid}`)
        .set('Authorization', 'Bearer not.a.token');
      expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it.each<[string, string, string, string?]>([
      ['JSON that does not parse', 'application/json', '{'],
      ['another media type', 'text/plain', 'not json'],
      ['a coding it cannot decode', 'application/json', '{}', 'x-made-up'],
    ])('answers 405 and 404 without reading a body: %s', async (_name, type, body, coding) => {
      const { url } = await rootApp();
      const send = (test: Test) => {
        const typed = test.set('Content-Type', type);
        return (coding === undefined ? typed : typed.set('Content-Encoding', coding)).send(body);
      };
      const wrongMethod = await send(request(url).patch(unarchivePath(guid)));
      expectProblem(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
      expect(wrongMethod.headers.allow).toBe('PUT');
      const noOperation = await send(request(url).post('/labor/v1/nope'));
      expectProblem(noOperation, 404, 'NOT_FOUND');
    });
  });

  describe(`${adapter.name}: identifiers of the longest form`, () => {
    // A naming authority of 16 characters and a value of 256 code points outside the Basic
    // Multilingual Plane: 529 UTF-16 code units once decoded, which is what a router may count.
    const longest = (authority: string, last = '🍕') =>
      `${authority}:${'🍕'.repeat(255)}${last}` as Shift['externalId'] & string;
    const world = aWorld();
    const shift = aShift(world.restaurant.guid, { externalId: longest('SCHEDULER_SHIFTS') });
    const employee = anEmployee(world.restaurant.guid, {
      externalId: longest('PAYROLL_EMPLOYEES'.slice(0, 16)),
    });
    const longApp = once(() =>
      testApp(
        adapter,
        {},
        {
          ...world,
          seed: {
            ...world.seed,
            employees: [...world.seed.employees, employee],
            shifts: [...world.seed.shifts, shift],
          },
        },
      ),
    );

    async function remove(path: string): Promise<Response> {
      const { url } = await longApp();
      const token = await tokenFor([world.restaurant.guid]);
      return request(url)
        .delete(path)
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid);
    }

    it('reach their operations', async () => {
      expect(shift.externalId?.length).toBe(16 + 1 + 2 * 256);
      const deleted = await remove(
        `/labor/v1/shifts/${encodeURIComponent(shift.externalId ?? '')}`,
      );
      expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
      expect(deleted.body).toMatchObject({ guid: shift.guid, externalId: shift.externalId });
      const archived = await remove(
        `/labor/v1/employees/${encodeURIComponent(employee.externalId ?? '')}`,
      );
      expect(archived.status, JSON.stringify(archived.body)).toBe(200);
      expect(archived.body).toMatchObject({ guid: employee.guid, deleted: true });
    });

    it('are looked up when unknown, and one character more is a validation failure', async () => {
      const unknown = longest('SCHEDULER_SHIFTS', '🍔');
      expectProblem(
        await remove(`/labor/v1/shifts/${encodeURIComponent(unknown)}`),
        404,
        'SHIFT_NOT_FOUND',
      );
      const tooLong = await remove(`/labor/v1/shifts/${encodeURIComponent(`${unknown}x`)}`);
      expectProblem(tooLong, 400, 'VALIDATION_FAILED');
      expect(tooLong.body.errors).toEqual([
        {
          path: '/params/shiftId',
          message: 'must be a platform GUID or an external identifier {namingAuthority}:{value}',
        },
      ]);
    });
  });

  describe(`${adapter.name}: HEAD on the restaurant path`, () => {
    const headApp = once(() => testApp(adapter));

    it('behaves as GET: 200 with the headers and no body', async () => {
      const { url, world } = await headApp();
      const token = await tokenFor([world.restaurant.guid]);
      const get = await request(url)
        .get(restaurantPath(world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid);
      const head = await request(url)
        .head(restaurantPath(world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid);
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toBe(get.headers['content-type']);
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      expect(head.headers['x-request-id']).toMatch(UUID);
      expect(head.text).toBeFalsy();
      expect(head.body).toEqual({});
    });

    it('is 401 without a token, as GET', async () => {
      const { url, world } = await headApp();
      const res = await request(url)
        .head(restaurantPath(world))
        .set(CONTEXT, world.restaurant.guid);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toMatch(/error="invalid_token"/);
      expect(res.text).toBeFalsy();
    });
  });

  describe(`${adapter.name}: a 200 without response validation (the default)`, () => {
    /** Two apps over equal stores: one checks its responses (and so answers through res.json). */
    const pair = once(async () => {
      const world = aWorld();
      const restaurant = {
        ...world.restaurant,
        general: { ...world.restaurant.general, name: 'Café Ünïcode 🍕 厨房' },
      };
      const unicodeWorld = {
        ...world,
        restaurant,
        seed: { ...world.seed, restaurants: [restaurant, world.other, world.archivedRestaurant] },
      };
      return {
        world: unicodeWorld,
        checked: await testApp(adapter, { validateResponses: true }, unicodeWorld),
        unchecked: await testApp(adapter, { validateResponses: false }, unicodeWorld),
      };
    });

    it('answers GET as the checked path does, with the byte length of a non-ASCII body', async () => {
      const { world, checked, unchecked } = await pair();
      const token = await tokenFor([world.restaurant.guid]);
      const get = (url: string) =>
        request(url)
          .get(restaurantPath(world))
          .set('Authorization', `Bearer ${token}`)
          .set(CONTEXT, world.restaurant.guid);
      const [viaJson, direct] = [await get(checked.url), await get(unchecked.url)];
      expect(direct.status).toBe(200);
      expect(direct.headers['content-type']).toBe(viaJson.headers['content-type']);
      expect(direct.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(direct.text).toBe(viaJson.text);
      expect(direct.body.general.name).toBe('Café Ünïcode 🍕 厨房');
      expect(Number(direct.headers['content-length'])).toBe(Buffer.byteLength(direct.text));
      expect(direct.headers['x-request-id']).toMatch(UUID);
      expect(direct.headers['ratelimit-remaining']).toBeDefined();
      // No body hash per response, and so no 304 the spec does not document.
      expect(direct.headers.etag).toBeUndefined();
      const revalidated = await get(unchecked.url).set('If-None-Match', '*');
      expect(revalidated.status).toBe(200);
    });

    it('answers HEAD with the length of the GET body and no body', async () => {
      const { world, unchecked } = await pair();
      const token = await tokenFor([world.restaurant.guid]);
      const head = await request(unchecked.url)
        .head(restaurantPath(world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid);
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
      expect(head.text).toBeFalsy();
    });

    it('answers a change with the changed record', async () => {
      const { world, unchecked } = await pair();
      const token = await tokenFor([world.restaurant.guid]);
      const res = await request(unchecked.url)
        .put(unarchivePath(world.archivedEmployee.guid))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid)
        .set('Content-Type', 'application/json')
        .send('{}');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toMatchObject({ guid: world.archivedEmployee.guid, deleted: false });
      expect(unchecked.store.recordedEvents()).toHaveLength(1);
    });
  });

  describe(`${adapter.name}: the order of the checks`, () => {
    const orderApp = once(() => testApp(adapter));

    /** An unarchive that is wrong in every way but authentication. */
    const badInput = (url: string): Test =>
      request(url)
        .put(unarchivePath('not-a-guid'))
        .set(CONTEXT, 'not-a-guid-either')
        .set('Content-Type', 'text/plain')
        .send('{');

    it('answers a bad token with bad input 401', async () => {
      const { url } = await orderApp();
      const res = await badInput(url).set('Authorization', 'Bearer not.a.token');
      expectProblem(res, 401, 'INVALID_TOKEN');
      expect(res.headers['www-authenticate']).toMatch(/error="invalid_token"/);
    });

    it('answers an expired token with bad input 401', async () => {
      const { url, world } = await orderApp();
      const expired = await tokenFor(
        [world.restaurant.guid],
        {},
        { expiresIn: Math.floor(Date.now() / 1000) - 60 },
      );
      const res = await badInput(url).set('Authorization', `Bearer ${expired}`);
      expectProblem(res, 401, 'INVALID_TOKEN');
      expect(res.body.detail).toBe('The access token has expired.');
    });

    it('answers a valid token without the scope, with bad input, 403', async () => {
      const { url, world } = await orderApp();
      const token = await tokenFor([world.restaurant.guid], {
        scope: 'restaurants:read labor.shifts:write',
      });
      const res = await badInput(url).set('Authorization', `Bearer ${token}`);
      expectProblem(res, 403, 'INSUFFICIENT_SCOPE');
      expect(res.headers['www-authenticate']).toMatch(
        /error="insufficient_scope".*scope="labor\.employees:write"/,
      );
    });

    it('answers a context restaurant the token may not act for, with bad input, 403', async () => {
      const { url, world } = await orderApp();
      const token = await tokenFor([world.other.guid]);
      const res = await request(url)
        .put(unarchivePath('not-a-guid'))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid.toUpperCase())
        .set('Content-Type', 'text/plain')
        .send('{');
      expectProblem(res, 403, 'RESTAURANT_NOT_PERMITTED');
    });

    it('answers a malformed context header with a valid token 400, not 403', async () => {
      const { url, world } = await orderApp();
      const token = await tokenFor([world.restaurant.guid]);
      const res = await request(url)
        .get(restaurantPath(world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, 'downtown');
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors).toContainEqual(
        expect.objectContaining({ path: '/headers/platform-restaurant-external-id' }),
      );
    });

    it('answers a missing context header with a valid token 400', async () => {
      const { url, world } = await orderApp();
      const token = await tokenFor([world.restaurant.guid], { scope: SCOPE_WRITE_EMPLOYEES });
      const res = await request(url)
        .delete(`/labor/v1/employees/${world.employee.guid}`)
        .set('Authorization', `Bearer ${token}`);
      expectProblem(res, 400, 'VALIDATION_FAILED');
      expect(res.body.errors).toContainEqual(
        expect.objectContaining({ path: '/headers/platform-restaurant-external-id' }),
      );
    });
  });

  describe(`${adapter.name}: events`, () => {
    async function subscribed(onEvent: (event: RecordedEvent) => void | Promise<void>) {
      const t = await testApp(adapter, { onEvent });
      const token = await tokenFor([t.world.restaurant.guid]);
      const as = (test: Test) =>
        test.set('Authorization', `Bearer ${token}`).set(CONTEXT, t.world.restaurant.guid);
      return { ...t, as };
    }

    it('hands each committed change to onEvent once, with the request id', async () => {
      const onEvent = vi.fn<(event: RecordedEvent) => void>();
      const { url, world, as, store } = await subscribed(onEvent);

      const unarchived = await as(request(url).put(unarchivePath(world.archivedEmployee.guid)))
        .set('Content-Type', 'application/json')
        .set('X-Request-Id', 'unarchive-1');
      expect(unarchived.status).toBe(200);
      await vi.waitFor(() => expect(onEvent).toHaveBeenCalledTimes(1));
      expect(onEvent).toHaveBeenLastCalledWith({
        type: 'EmployeeUnarchived',
        restaurantGuid: world.restaurant.guid,
        employeeGuid: world.archivedEmployee.guid,
        occurredAt: unarchived.body.modifiedDate,
        eventId: expect.any(String),
        requestId: 'unarchive-1',
      });

      const archived = await as(request(url).delete(`/labor/v1/employees/${world.employee.guid}`));
      expect(archived.status).toBe(200);
      await vi.waitFor(() => expect(onEvent).toHaveBeenCalledTimes(2));
      expect(onEvent).toHaveBeenLastCalledWith(
        expect.objectContaining({
          type: 'EmployeeArchived',
          employeeGuid: world.employee.guid,
          requestId: archived.headers['x-request-id'],
        }),
      );

      const deleted = await as(request(url).delete('/labor/v1/shifts/SCHEDULER:shift-1'));
      expect(deleted.status).toBe(200);
      await vi.waitFor(() => expect(onEvent).toHaveBeenCalledTimes(3));
      expect(onEvent).toHaveBeenLastCalledWith(
        expect.objectContaining({
          type: 'ShiftDeleted',
          restaurantGuid: world.restaurant.guid,
          shiftGuid: world.shift.guid,
          requestId: deleted.headers['x-request-id'],
        }),
      );
      expect(onEvent.mock.calls.map(([event]) => event)).toEqual(store.recordedEvents());
    });

    it('is not called for a no-op delete or archive, nor for a failed call', async () => {
      const onEvent = vi.fn<(event: RecordedEvent) => void>();
      const { url, world, as } = await subscribed(onEvent);

      const noOp = await as(request(url).delete(`/labor/v1/shifts/${world.deletedShift.guid}`));
      const notArchived = await as(request(url).put(unarchivePath(world.employee.guid))).set(
        'Content-Type',
        'application/json',
      );
      const alreadyArchived = await as(
        request(url).delete(`/labor/v1/employees/${world.archivedEmployee.guid}`),
      );
      const notFound = await as(request(url).delete('/labor/v1/shifts/SCHEDULER:nope'));
      const otherRestaurant = await as(
        request(url).delete(`/labor/v1/shifts/${world.otherShift.guid}`),
      );
      expect(
        [noOp, notArchived, alreadyArchived, notFound, otherRestaurant].map((res) => res.status),
      ).toEqual([200, 400, 200, 404, 404]);

      // A change after them: when its event arrives, any event of the calls before would have too.
      const change = await as(request(url).delete(`/labor/v1/shifts/${world.shift.guid}`));
      expect(change.status).toBe(200);
      await vi.waitFor(() => expect(onEvent).toHaveBeenCalled());
      expect(onEvent).toHaveBeenCalledTimes(1);
      expect(onEvent).toHaveBeenCalledWith(
        expect.objectContaining({ requestId: change.headers['x-request-id'] }),
      );
    });

    it.each([
      [
        'throws',
        () => {
          throw new Error('subscriber exploded');
        },
      ],
      ['rejects', () => Promise.reject(new Error('subscriber exploded'))],
    ])('keeps the 200 when onEvent %s, and logs the failure', async (_name, failing) => {
      const onEvent = vi.fn(failing);
      const { url, world, as, logs } = await subscribed(onEvent);
      const res = await as(request(url).delete(`/labor/v1/employees/${world.employee.guid}`));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ guid: world.employee.guid, deleted: true });
      const requestId = res.headers['x-request-id'] ?? '';
      await vi.waitFor(() =>
        expect(lines(logs, requestId)).toContainEqual(
          expect.objectContaining({
            level: 50,
            msg: 'onEvent failed',
            err: expect.objectContaining({ message: 'subscriber exploded' }),
            event: expect.objectContaining({ type: 'EmployeeArchived', requestId }),
          }),
        ),
      );
      expect(onEvent).toHaveBeenCalledTimes(1);
    });
  });

  describe(`${adapter.name}: the request timeout`, () => {
    it('answers 503 REQUEST_TIMEOUT with Retry-After when the store never answers', async () => {
      const { url, world, logs } = await appOver(
        adapter,
        (store) => ({
          ...store,
          restaurants: {
            findByGuid: () =>
              new ResultAsync<Restaurant | null, StorageError>(new Promise(() => {})),
          },
        }),
        { requestTimeoutMs: 50 },
      );
      const token = await tokenFor([world.restaurant.guid]);
      const started = Date.now();
      const res = await request(url)
        .get(restaurantPath(world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid)
        .timeout(5_000);
      expect(Date.now() - started).toBeLessThan(1_000);
      expectProblem(res, 503, 'REQUEST_TIMEOUT');
      expect(res.headers['retry-after']).toBe('1');
      expect(lines(logs, res.body.requestId)).toContainEqual(
        expect.objectContaining({ msg: 'request timed out', timeoutMs: 50 }),
      );
    });

    it('keeps the 503 when the store answers after the timeout', async () => {
      const { url, world, logs } = await appOver(
        adapter,
        (store) => ({
          ...store,
          restaurants: {
            findByGuid: (guid) =>
              ResultAsync.fromSafePromise(
                new Promise<void>((resolve) => setTimeout(resolve, 150)),
              ).andThen(() => toResultAsync(store.restaurants.findByGuid(guid))),
          },
        }),
        { requestTimeoutMs: 50 },
      );
      const token = await tokenFor([world.restaurant.guid]);
      const res = await request(url)
        .get(restaurantPath(world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid);
      expectProblem(res, 503, 'REQUEST_TIMEOUT');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(logs.filter((line) => (line.level as number) >= 50)).toEqual([]);
    });
  });

  describe(`${adapter.name}: headers for personal data`, () => {
    it('mark every answer of the API no-store and nosniff, and give none an ETag', async () => {
      const t = await testApp(adapter);
      const token = await tokenFor([t.world.restaurant.guid]);
      const unarchived = await request(t.url)
        .put(unarchivePath(t.world.archivedEmployee.guid))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, t.world.restaurant.guid)
        .set('Content-Type', 'application/json');
      const refused = await request(t.url).get(restaurantPath(t.world));
      const unknown = await request(t.url).get('/labor/v1/nothing');
      expect([unarchived.status, refused.status, unknown.status]).toEqual([200, 401, 404]);
      for (const res of [unarchived, refused, unknown]) {
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        expect(res.headers.etag).toBeUndefined();
      }
    });

    it("add the host's responseHeaders to every answer, but never in place of the API's own", async () => {
      const t = await testApp(adapter, {
        responseHeaders: {
          'Strict-Transport-Security': 'max-age=31536000',
          'x-frame-options': 'DENY',
          // The API's own, in other letter cases: not taken.
          'cache-control': 'public, max-age=600',
          'X-REQUEST-ID': 'fixed',
          'Content-Type': 'text/plain',
        },
      });
      const token = await tokenFor([t.world.restaurant.guid]);
      const found = await request(t.url)
        .get(restaurantPath(t.world))
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, t.world.restaurant.guid);
      const refused = await request(t.url).get(restaurantPath(t.world));
      const notAllowed = await request(t.url).post(restaurantPath(t.world));
      expect([found.status, refused.status, notAllowed.status]).toEqual([200, 401, 405]);
      for (const res of [found, refused, notAllowed]) {
        expect(res.headers['strict-transport-security']).toBe('max-age=31536000');
        expect(res.headers['x-frame-options']).toBe('DENY');
        expect(res.headers['cache-control']).toBe('no-store');
        expect(res.headers['x-request-id']).toMatch(UUID);
        expect(res.headers['content-type']).toMatch(
          /^application\/(problem\+)?json; charset=utf-8$/,
        );
      }
    });
  });

  describe(`${adapter.name}: the request log`, () => {
    it('records no credential sent in the query string', async () => {
      const t = await testApp(adapter);
      const token = await tokenFor([t.world.restaurant.guid]);
      const res = await request(t.url)
        .get(`${restaurantPath(t.world)}?access_token=${token}`)
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, t.world.restaurant.guid);
      expect(res.status).toBe(400);
      await vi.waitFor(() =>
        expect(lines(t.logs, res.body.requestId)).toContainEqual(
          expect.objectContaining({
            msg: 'request',
            path: `${restaurantPath(t.world)}?access_token=[redacted]`,
          }),
        ),
      );
      expect(JSON.stringify(t.logs)).not.toContain(token);
    });

    it('records the path as sent, one that does not percent-decode too', async () => {
      const t = await testApp(adapter);
      const token = await tokenFor([t.world.restaurant.guid]);
      const path = '/labor/v1/shifts/AUTH%3A%E0%A4%A?note=%ZZ';
      const res = await request(t.url)
        .delete(path)
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, t.world.restaurant.guid);
      expect(res.status).toBe(400);
      await vi.waitFor(() =>
        expect(lines(t.logs, res.body.requestId)).toContainEqual(
          expect.objectContaining({ msg: 'request', path, status: 400 }),
        ),
      );
    });
  });

  describe(`${adapter.name}: a body slower than the request timeout`, () => {
    it('gets its 503, and the change it asked for never starts, even when the body completes', async () => {
      const t = await testApp(adapter, { requestTimeoutMs: 200 });
      const { world } = t;
      const port = Number(new URL(t.url).port);
      const token = await tokenFor([world.restaurant.guid]);
      const body = '{"note": "sent slowly"}';
      const socket = connect(port, '127.0.0.1');
      onTestFinished(() => {
        socket.destroy();
      });
      await new Promise((resolve) => socket.once('connect', resolve));
      let answer = '';
      socket.on('data', (chunk: Buffer) => {
        answer += chunk.toString();
      });
      const closed = new Promise((resolve) => socket.once('close', resolve));
      socket.write(
        [
          `PUT ${unarchivePath(world.archivedEmployee.guid)} HTTP/1.1`,
          'Host: localhost',
          `Authorization: Bearer ${token}`,
          `${CONTEXT}: ${world.restaurant.guid}`,
          'Content-Type: application/json',
          `Content-Length: ${body.length}`,
          '',
          body.slice(0, 5),
        ].join('\r\n'),
      );
      await vi.waitFor(() => expect(answer).toMatch(/^HTTP\/1\.1 503 /), { timeout: 2_000 });
      expect(answer).toMatch(/REQUEST_TIMEOUT/);
      // The rest of the body arrives after the answer, if the connection is still open.
      if (!socket.destroyed) socket.write(body.slice(5));
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 300))]);
      socket.destroy();

      const stored = await t.store.employees.find(world.restaurant.guid, {
        kind: 'guid',
        guid: world.archivedEmployee.guid,
      });
      expect(stored._unsafeUnwrap()?.deleted).toBe(true);
      expect(t.store.recordedEvents()).toEqual([]);
    });
  });

  describe(`${adapter.name}: the body of an unarchive`, () => {
    const ACCEPTED: readonly [string, string, string | undefined][] = [
      ['application/json', 'application/json', '{}'],
      ['application/json; charset=utf-8', 'application/json; charset=utf-8', '{}'],
      ['APPLICATION/JSON', 'APPLICATION/JSON', '{}'],
      ['application/json;charset=UTF-8', 'application/json;charset=UTF-8', '{}'],
      ['a quoted charset', 'application/json; charset="utf-8"', '{}'],
      ['another parameter', 'application/json; profile=x', '{}'],
      ['no body', 'application/json', undefined],
      ['an empty body', 'application/json', ''],
      ['a JSON string', 'application/json', '"x"'],
      ['a JSON list', 'application/json', '[1]'],
      ['a JSON object with fields', 'application/json', '{"reason":"rehired","deleted":true}'],
      ['a JSON number', 'application/json', '42'],
      ['a JSON null', 'application/json', 'null'],
      ['a byte order mark before the JSON', 'application/json', '\uFEFF{"reason":"rehired"}'],
      [
        'a body of exactly 16 KiB',
        'application/json',
        JSON.stringify({ pad: 'a'.repeat(16 * 1024 - 10) }),
      ],
    ];

    const REFUSED: readonly [string, string | undefined, string | undefined, number, string][] = [
      ['charset latin1', 'application/json; charset=latin1', '{}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['charset utf-16', 'application/json; charset=utf-16', '{}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['text/plain', 'text/plain', '{}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a form', 'application/x-www-form-urlencoded', 'a=1', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['application/jsonx', 'application/jsonx', '{}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a JSON suffix type', 'application/merge-patch+json', '{}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [
        'an unparsable Content-Type',
        'application/json; charset',
        '{}',
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      ['a trailing semicolon', 'application/json;', '{}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      [
        'an unclosed quote',
        'application/json; charset="utf-8',
        '{}',
        415,
        'UNSUPPORTED_MEDIA_TYPE',
      ],
      ['a parameter without a name', 'application/json; =x', '{}', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['no Content-Type', undefined, undefined, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['an empty Content-Type', '', undefined, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['a truncated object', 'application/json', '{', 400, 'MALFORMED_JSON'],
      ['single quotes', 'application/json', "{'a':1}", 400, 'MALFORMED_JSON'],
      ['a bare word', 'application/json', 'hello', 400, 'MALFORMED_JSON'],
      [
        'a body of 17 KiB',
        'application/json',
        JSON.stringify({ pad: 'a'.repeat(17 * 1024) }),
        413,
        'PAYLOAD_TOO_LARGE',
      ],
      [
        'a body of 16 KiB and a byte',
        'application/json',
        `"${'a'.repeat(16 * 1024 - 1)}"`,
        413,
        'PAYLOAD_TOO_LARGE',
      ],
    ];

    /** Content-Encodings that name no coding. */
    const UNENCODED = ['identity', 'IDENTITY', ''] as const;

    const world = aWorldWithSpares(ACCEPTED.length + REFUSED.length + UNENCODED.length);
    const bodyApp = once(() => testApp(adapter, { rateLimit: false }, world));
    const token = once(() => tokenFor([world.restaurant.guid], { scope: SCOPE_WRITE_EMPLOYEES }));

    /** The unarchive of `guid`, ready to send: a Test is a thenable, so it is not returned by an async function. */
    async function unarchive(
      guid: string,
      contentType: string | undefined,
    ): Promise<{ test: Test }> {
      const { url } = await bodyApp();
      const test = request(url)
        .put(unarchivePath(guid))
        .set('Authorization', `Bearer ${await token()}`)
        .set(CONTEXT, world.restaurant.guid);
      return { test: contentType === undefined ? test : test.set('Content-Type', contentType) };
    }

    async function put(
      guid: string,
      contentType: string | undefined,
      body?: string,
    ): Promise<Response> {
      const { test } = await unarchive(guid, contentType);
      return body === undefined ? test : test.send(body);
    }

    async function stored(guid: Guid): Promise<Employee | null> {
      const { store } = await bodyApp();
      return (
        await store.employees.find(world.restaurant.guid, { kind: 'guid', guid: guid })
      )._unsafeUnwrap();
    }

    it.for(ACCEPTED.map((row, index) => [...row, index] as const))(
      'accepts %s: the use case decides',
      async ([, contentType, body, index]) => {
        if (body !== undefined) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(16 * 1024);
        const notArchived = at(world.spareEmployees, index);
        expectProblem(await put(notArchived.guid, contentType, body), 400, 'EMPLOYEE_NOT_ARCHIVED');

        const archived = at(world.spareArchived, index);
        const unarchived = await put(archived.guid, contentType, body);
        expect(unarchived.status, JSON.stringify(unarchived.body)).toBe(200);
        expect(unarchived.body).toMatchObject({ guid: archived.guid, deleted: false });
        expect((await stored(archived.guid))?.deleted).toBe(false);
      },
    );

    it.for(REFUSED.map((row, index) => [...row, index] as const))(
      'refuses %s and leaves the employee as it was',
      async ([, contentType, body, status, code, index]) => {
        // The spares after those of the accepted cases.
        const guid = at(world.spareArchived, ACCEPTED.length + index).guid;
        const before = await stored(guid);
        expect(before?.deleted).toBe(true);

        expectProblem(await put(guid, contentType, body), status, code);
        expect(await stored(guid)).toEqual(before);
        const { store } = await bodyApp();
        const events = store.recordedEvents();
        expect(
          events.filter((event) => 'employeeGuid' in event && event.employeeGuid === guid),
        ).toEqual([]);

        // The same request, well formed, does change it.
        expect((await put(guid, 'application/json', '{}')).status).toBe(200);
        expect((await stored(guid))?.deleted).toBe(false);
      },
    );

    it.for(UNENCODED.map((coding, index) => [coding, index] as const))(
      'takes a body whose Content-Encoding is %j as it is',
      async ([coding, index]) => {
        // The spares after those of the accepted and the refused cases.
        const guid = at(world.spareArchived, ACCEPTED.length + REFUSED.length + index).guid;
        const { test } = await unarchive(guid, 'application/json');
        const res = await test.set('Content-Encoding', coding).send('{"reason":"rehired"}');
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        expect((await stored(guid))?.deleted).toBe(false);
      },
    );

    it('refuses a body in an unsupported encoding with 415', async () => {
      const guid = world.archivedEmployee.guid;
      const before = await stored(guid);
      const { test } = await unarchive(guid, 'application/json');
      const res = await test.set('Content-Encoding', 'x-made-up').send('{}');
      expectProblem(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
      expect(await stored(guid)).toEqual(before);
    });
  });

  describe(`${adapter.name}: operations without a body`, () => {
    /** Content-Type, body, and Content-Encoding. */
    const BODIES: readonly [string, string, string?][] = [
      ['text/plain', 'not json at all'],
      ['application/json', '{'],
      ['application/xml', '<shift/>'],
      ['application/json; charset=latin1', '{}'],
      ['application/json', JSON.stringify({ pad: 'a'.repeat(20 * 1024) })],
      ['application/json', '{}', 'x-made-up'],
      ['application/json', 'not gzip', 'gzip'],
    ];
    const world = aWorldWithSpares(BODIES.length);
    const appWithoutBodies = once(() => testApp(adapter, { rateLimit: false }, world));
    const token = once(() => tokenFor([world.restaurant.guid]));

    /** `method path` with the token, the context and this Content-Type, body and coding, sent. */
    async function send(
      method: 'get' | 'delete',
      path: string,
      contentType: string,
      body: string,
      coding?: string,
    ) {
      const { url } = await appWithoutBodies();
      const test = request(url)
        [method](path)
        .set('Authorization', `Bearer ${await token()}`)
        .set(CONTEXT, world.restaurant.guid)
        .set('Content-Type', contentType);
      return (coding === undefined ? test : test.set('Content-Encoding', coding)).send(body);
    }

    it.for(BODIES.map(([type, body, coding], index) => [type, body, coding, index] as const))(
      'DELETE ignores a %s body (%#)',
      async ([contentType, body, coding, index]) => {
        const shiftGuid = at(world.spareShifts, index).guid;
        const shiftPath = `/labor/v1/shifts/${shiftGuid}`;
        const shift = await send('delete', shiftPath, contentType, body, coding);
        expect(shift.status, JSON.stringify(shift.body)).toBe(200);
        expect(shift.body).toMatchObject({ guid: shiftGuid, deleted: true });

        const employeeGuid = at(world.spareEmployees, index).guid;
        const employee = await send(
          'delete',
          `/labor/v1/employees/${employeeGuid}`,
          contentType,
          body,
          coding,
        );
        expect(employee.status, JSON.stringify(employee.body)).toBe(200);
        expect(employee.body).toMatchObject({ guid: employeeGuid, deleted: true });
      },
    );

    it.for(BODIES)('GET ignores a %s body (%#)', async ([contentType, body, coding]) => {
      const res = await send('get', restaurantPath(world), contentType, body, coding);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.guid).toBe(world.restaurant.guid);
    });
  });

  describe(`${adapter.name}: a 500`, () => {
    const SECRET_SQL = 'SELECT secret FROM pg_shadow';

    it.each([
      ['employees.find', 'unarchive'],
      ['restaurants.findByGuid', 'get'],
    ] as const)('from a store whose %s throws shows nothing internal', async (_port, operation) => {
      const thrower = () => {
        throw new Error(SECRET_SQL);
      };
      const { url, world, logs } = await appOver(adapter, (store) => ({
        ...store,
        employees: { ...store.employees, find: thrower },
        restaurants: { findByGuid: thrower },
      }));
      const token = await tokenFor([world.restaurant.guid]);
      const call =
        operation === 'get'
          ? request(url).get(restaurantPath(world))
          : request(url)
              .put(unarchivePath(world.archivedEmployee.guid))
              .set('Content-Type', 'application/json');
      const res = await call
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, world.restaurant.guid);

      expectProblem(res, 500, 'INTERNAL_ERROR');
      const requestId = res.headers['x-request-id'] ?? '';
      expect(res.body).toEqual({
        type: 'https://workforce-kit.dev/problems/internal-error',
        title: 'Internal server error',
        status: 500,
        detail: 'An unexpected error occurred. Quote the requestId to support.',
        instance:
          operation === 'get' ? restaurantPath(world) : unarchivePath(world.archivedEmployee.guid),
        code: 'INTERNAL_ERROR',
        requestId,
      });
      expect(res.text).not.toMatch(/pg_shadow|SELECT|stack|\.ts:\d+/);

      const logged = lines(logs, requestId).find((line) => line.msg === 'unexpected error');
      expect(logged).toMatchObject({ level: 50, err: { message: SECRET_SQL } });
      expect(String((logged?.err as { stack?: unknown } | undefined)?.stack)).toContain(SECRET_SQL);
    });
  });
}
