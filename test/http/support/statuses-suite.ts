// Every status of every operation, over real HTTP (supertest), with response validation on: each
// answer must also match the spec, or it would be a 500. The suite of the operations, refusals and
// problem details, run against each adapter's app (statuses.test.ts) and against the fetch
// adapter's server on Bun and Deno (test/runtimes), whose apps live in another process: so a test
// names its app's settings and fault as data (faults.ts), and reads the store through `StoreView`.
import type { EmployeeRepository, RecordedEvent, ShiftRepository } from '@workforce-kit/core';
import { newGuid } from '@workforce-kit/core/testing';
import { tokenFor } from '@workforce-kit/http/testing';
import { openapiDocument } from '@workforce-kit/types';
import request, { type Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppSettings } from './faults.js';
import type { World } from './world.js';

/** What a test reads of its app's store: the memory store itself, or the same reads from afar. */
export interface StoreView {
  readonly employees: Pick<EmployeeRepository, 'find'>;
  readonly shifts: Pick<ShiftRepository, 'find'>;
  recordedEvents(): readonly RecordedEvent[] | Promise<readonly RecordedEvent[]>;
}

/** An app under test, listening: its base URL, its records, its store. */
export interface AppUnderTest {
  readonly url: string;
  readonly world: World;
  readonly store: StoreView;
}

/** Where the suite runs: the apps of one adapter, or of a runtime's server. */
export interface AppsUnderTest {
  readonly name: string;
  /** A new app over a memory store of a new world, with `settings` (none: the defaults). */
  app(settings?: AppSettings): Promise<AppUnderTest>;
}

type OperationId = 'unarchiveEmployee' | 'archiveEmployee' | 'deleteShift' | 'getRestaurant';

const OPERATION_PATHS: Record<OperationId, [string, string]> = {
  unarchiveEmployee: ['/labor/v1/employees/{employeeId}/unarchive', 'put'],
  archiveEmployee: ['/labor/v1/employees/{employeeId}', 'delete'],
  deleteShift: ['/labor/v1/shifts/{shiftId}', 'delete'],
  getRestaurant: ['/restaurants/v1/restaurants/{restaurantGUID}', 'get'],
};

/** The statuses and, per status, the codes the spec documents for an operation. */
function documented(operation: OperationId): Map<string, string[]> {
  const [path, method] = OPERATION_PATHS[operation];
  const op = openapiDocument.paths[path]?.[method] as { responses: Record<string, unknown> };
  const components = openapiDocument.components as { responses: Record<string, unknown> };
  const codes = new Map<string, string[]>();
  for (const [status, response] of Object.entries(op.responses)) {
    const ref = (response as { $ref?: string }).$ref;
    const resolved = (ref ? components.responses[ref.split('/').pop() ?? ''] : response) as {
      content?: Record<
        string,
        { schema: { allOf?: { properties?: { code?: { enum?: string[] } } }[] } }
      >;
    };
    const schema = resolved.content?.['application/problem+json']?.schema;
    codes.set(status, schema?.allOf?.flatMap((part) => part.properties?.code?.enum ?? []) ?? []);
  }
  return codes;
}

/** A success: 200, JSON, the request id header. */
function expectSuccess(operation: OperationId, res: Response): void {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.headers['x-request-id']).toBeTruthy();
  expect([...documented(operation).keys()]).toContain('200');
}

/** A problem: the status and code, documented for the operation; problem+json; the request id. */
function expectProblem(operation: OperationId, res: Response, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body).toMatchObject({ status, code, requestId: res.headers['x-request-id'] });
  expect(res.body.type).toBe(
    `https://workforce-kit.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`,
  );
  expect(typeof res.body.title).toBe('string');
  expect(documented(operation).get(String(status)), `${status} of ${operation}`).toContain(code);
}

interface Call {
  readonly operation: OperationId;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly token?: string | null;
  readonly context?: string | null;
}

async function call(url: string, token: string, world: World, c: Call): Promise<Response> {
  const [, method] = OPERATION_PATHS[c.operation];
  let req = request(url)[method as 'get'](c.path);
  const bearer = c.token === undefined ? token : c.token;
  if (bearer !== null) req = req.set('Authorization', `Bearer ${bearer}`);
  const context = c.context === undefined ? world.restaurant.guid : c.context;
  if (context !== null) req = req.set('Platform-Restaurant-External-ID', context);
  if (c.operation === 'unarchiveEmployee' && c.headers?.['Content-Type'] === undefined) {
    req = req.set('Content-Type', 'application/json');
  }
  if (c.headers) req = req.set(c.headers);
  return c.body === undefined ? req : req.send(c.body);
}

/** The suite, for the apps of `target`. */
export function describeStatuses(target: AppsUnderTest): void {
  describe(`${target.name}: every status of every operation`, () => {
    let t: AppUnderTest;
    let token: string;
    let w: World;
    const send = (c: Call) => call(t.url, token, w, c);

    beforeAll(async () => {
      // Limits are tested on their own below; here they would refuse this suite's pace.
      t = await target.app({ rateLimit: false });
      w = t.world;
      token = await tokenFor([w.restaurant.guid, w.archivedRestaurant.guid]);
    });

    describe('unarchiveEmployee', () => {
      const path = (id: string) => `/labor/v1/employees/${id}/unarchive`;

      it('200: unarchives an archived employee, GUID in any case', async () => {
        const res = await send({
          operation: 'unarchiveEmployee',
          path: path(w.archivedEmployee.guid.toUpperCase()),
        });
        expectSuccess('unarchiveEmployee', res);
        expect(res.body).toMatchObject({
          guid: w.archivedEmployee.guid,
          deleted: false,
          entityType: 'RestaurantUser',
        });
        expect(res.body.deletedDate).toBeUndefined();
        expect(res.body.jobReferences).toEqual(w.archivedEmployee.jobReferences);
        expect(w.archivedEmployee.passcode).toBeDefined();
        for (const internal of ['restaurantGuid', 'version', 'swipeCard', 'passcode'])
          expect(res.body).not.toHaveProperty(internal);
      });

      it('400 EMPLOYEE_NOT_ARCHIVED: the employee is not archived, and nothing changes', async () => {
        const before = (
          await t.store.employees.find(w.restaurant.guid, { kind: 'guid', guid: w.employee.guid })
        )._unsafeUnwrap();
        const res = await send({ operation: 'unarchiveEmployee', path: path(w.employee.guid) });
        expectProblem('unarchiveEmployee', res, 400, 'EMPLOYEE_NOT_ARCHIVED');
        expect(
          (
            await t.store.employees.find(w.restaurant.guid, { kind: 'guid', guid: w.employee.guid })
          )._unsafeUnwrap(),
        ).toEqual(before);
      });

      it('400 VALIDATION_FAILED: employeeId is not a GUID', async () => {
        const res = await send({ operation: 'unarchiveEmployee', path: path('42') });
        expectProblem('unarchiveEmployee', res, 400, 'VALIDATION_FAILED');
        expect(res.body.errors).toEqual([
          { path: '/params/employeeId', message: 'must be a platform GUID' },
        ]);
      });

      it('400 VALIDATION_FAILED: the context header is missing (required) or not a GUID', async () => {
        for (const [context, message] of [
          [null, 'is required'],
          ['restaurant-1', 'must be a platform GUID'],
        ] as const) {
          const res = await send({
            operation: 'unarchiveEmployee',
            path: path(w.archivedEmployee.guid),
            context,
          });
          expectProblem('unarchiveEmployee', res, 400, 'VALIDATION_FAILED');
          expect(res.body.errors).toEqual([
            { path: '/headers/platform-restaurant-external-id', message },
          ]);
        }
      });

      it('400 MALFORMED_JSON: the body is not JSON', async () => {
        const res = await send({
          operation: 'unarchiveEmployee',
          path: path(w.archivedEmployee.guid),
          body: '{"a":',
        });
        expectProblem('unarchiveEmployee', res, 400, 'MALFORMED_JSON');
      });

      it('400 MALFORMED_JSON: a body its Content-Encoding does not decode (not a 500)', async () => {
        const stored = () =>
          t.store.employees.find(w.restaurant.guid, {
            kind: 'guid',
            guid: w.archivedEmployee.guid,
          });
        const before = (await stored())._unsafeUnwrap();
        for (const encoding of ['gzip', 'deflate', 'br', 'GZIP']) {
          const res = await send({
            operation: 'unarchiveEmployee',
            path: path(w.archivedEmployee.guid),
            headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
            body: '{}',
          });
          expectProblem('unarchiveEmployee', res, 400, 'MALFORMED_JSON');
        }
        expect((await stored())._unsafeUnwrap()).toEqual(before);
      });

      it('401 INVALID_TOKEN: no token, or an expired one, with the Bearer challenge', async () => {
        const expired = await tokenFor(
          [w.restaurant.guid],
          {},
          { expiresIn: Math.floor(Date.now() / 1000) - 60 },
        );
        for (const bearer of [null, expired, 'not.a.jwt']) {
          const res = await send({
            operation: 'unarchiveEmployee',
            path: path(w.archivedEmployee.guid),
            token: bearer,
          });
          expectProblem('unarchiveEmployee', res, 401, 'INVALID_TOKEN');
          expect(res.headers['www-authenticate']).toMatch(
            /^Bearer realm="workforce-kit", error="invalid_token"/,
          );
        }
      });

      it('403 INSUFFICIENT_SCOPE and RESTAURANT_NOT_PERMITTED', async () => {
        const readOnly = await tokenFor([w.restaurant.guid], {
          scope: 'restaurants:read labor.shifts:write',
        });
        const scoped = await send({
          operation: 'unarchiveEmployee',
          path: path(w.archivedEmployee.guid),
          token: readOnly,
        });
        expectProblem('unarchiveEmployee', scoped, 403, 'INSUFFICIENT_SCOPE');
        expect(scoped.headers['www-authenticate']).toContain('error="insufficient_scope"');
        expect(scoped.headers['www-authenticate']).toContain('scope="labor.employees:write"');

        const elsewhere = await send({
          operation: 'unarchiveEmployee',
          path: path(w.otherEmployee.guid),
          context: w.other.guid,
        });
        expectProblem('unarchiveEmployee', elsewhere, 403, 'RESTAURANT_NOT_PERMITTED');
        expect(elsewhere.headers['www-authenticate']).toContain('error="insufficient_scope"');
      });

      it("404 EMPLOYEE_NOT_FOUND: unknown, or another restaurant's employee", async () => {
        const all = await tokenFor('*');
        for (const id of [newGuid(), w.otherEmployee.guid]) {
          const res = await send({ operation: 'unarchiveEmployee', path: path(id), token: all });
          expectProblem('unarchiveEmployee', res, 404, 'EMPLOYEE_NOT_FOUND');
        }
        expect(
          (
            await t.store.employees.find(w.other.guid, { kind: 'guid', guid: w.otherEmployee.guid })
          )._unsafeUnwrap()?.deleted,
        ).toBe(true);
      });

      it('405 METHOD_NOT_ALLOWED with Allow', async () => {
        const res = await request(t.url).post(path(w.archivedEmployee.guid));
        expectProblem('unarchiveEmployee', res, 405, 'METHOD_NOT_ALLOWED');
        expect(res.headers.allow).toBe('PUT');
      });

      it('413 PAYLOAD_TOO_LARGE: a body over 16 KiB', async () => {
        const body = JSON.stringify({ padding: 'x'.repeat(17 * 1024) });
        const res = await send({
          operation: 'unarchiveEmployee',
          path: path(w.archivedEmployee.guid),
          body,
        });
        expectProblem('unarchiveEmployee', res, 413, 'PAYLOAD_TOO_LARGE');
      });

      it('415 UNSUPPORTED_MEDIA_TYPE: Content-Type missing or not JSON', async () => {
        const wrong = await send({
          operation: 'unarchiveEmployee',
          path: path(w.archivedEmployee.guid),
          headers: { 'Content-Type': 'text/plain' },
          body: '{}',
        });
        expectProblem('unarchiveEmployee', wrong, 415, 'UNSUPPORTED_MEDIA_TYPE');
        const missing = await request(t.url)
          .put(path(w.archivedEmployee.guid))
          .set('Authorization', `Bearer ${token}`)
          .set('Platform-Restaurant-External-ID', w.restaurant.guid);
        expectProblem('unarchiveEmployee', missing, 415, 'UNSUPPORTED_MEDIA_TYPE');
      });
    });

    describe('archiveEmployee', () => {
      const path = (id: string) => `/labor/v1/employees/${id}`;

      it('200: archives an employee; 200 with the record unchanged the second time', async () => {
        const first = await send({ operation: 'archiveEmployee', path: path(w.employee.guid) });
        expectSuccess('archiveEmployee', first);
        expect(first.body).toMatchObject({ deleted: true, deletedDate: first.body.modifiedDate });
        const events = (await t.store.recordedEvents()).length;
        const second = await send({ operation: 'archiveEmployee', path: path(w.employee.guid) });
        expectSuccess('archiveEmployee', second);
        expect(second.body).toEqual(first.body);
        expect(await t.store.recordedEvents()).toHaveLength(events);
      });

      it('200: archives an employee named by its external id, within the context restaurant', async () => {
        // Both restaurants have an employee with this external id: each context finds its own.
        const { externalId } = w.employee;
        if (externalId === undefined || externalId !== w.otherEmployee.externalId) {
          throw new Error('the test world needs one external id in both restaurants');
        }
        const both = await tokenFor([w.restaurant.guid, w.other.guid]);
        const byExternalId = path(encodeURIComponent(externalId));
        const own = () =>
          t.store.employees.find(w.restaurant.guid, { kind: 'guid', guid: w.employee.guid });
        const before = (await own())._unsafeUnwrap();
        const inOther = await send({
          operation: 'archiveEmployee',
          path: byExternalId,
          context: w.other.guid,
          token: both,
        });
        expectSuccess('archiveEmployee', inOther);
        expect(inOther.body).toMatchObject({ guid: w.otherEmployee.guid, deleted: true });
        expect((await own())._unsafeUnwrap()).toEqual(before);

        const res = await send({ operation: 'archiveEmployee', path: byExternalId, token: both });
        expectSuccess('archiveEmployee', res);
        expect(res.body).toMatchObject({ guid: w.employee.guid, externalId, deleted: true });
        const unknown = await send({ operation: 'archiveEmployee', path: path('PAYROLL:nobody') });
        expectProblem('archiveEmployee', unknown, 404, 'EMPLOYEE_NOT_FOUND');
      });

      it('400 VALIDATION_FAILED: an employeeId that is neither a GUID nor an external identifier', async () => {
        const res = await send({ operation: 'archiveEmployee', path: path('10042') });
        expectProblem('archiveEmployee', res, 400, 'VALIDATION_FAILED');
        expect(res.body.errors).toEqual([
          {
            path: '/params/employeeId',
            message: 'must be a platform GUID or an external identifier {namingAuthority}:{value}',
          },
        ]);
      });

      it('400 VALIDATION_FAILED, 401, 403, 404, 405', async () => {
        expectProblem(
          'archiveEmployee',
          await send({ operation: 'archiveEmployee', path: path('{guid}') }),
          400,
          'VALIDATION_FAILED',
        );
        expectProblem(
          'archiveEmployee',
          await send({ operation: 'archiveEmployee', path: path(newGuid()), token: null }),
          401,
          'INVALID_TOKEN',
        );
        const shiftsOnly = await tokenFor([w.restaurant.guid], { scope: 'labor.shifts:write' });
        expectProblem(
          'archiveEmployee',
          await send({
            operation: 'archiveEmployee',
            path: path(w.employee.guid),
            token: shiftsOnly,
          }),
          403,
          'INSUFFICIENT_SCOPE',
        );
        expectProblem(
          'archiveEmployee',
          await send({ operation: 'archiveEmployee', path: path(newGuid()) }),
          404,
          'EMPLOYEE_NOT_FOUND',
        );
        const wrongMethod = await request(t.url).get(path(w.employee.guid));
        expectProblem('archiveEmployee', wrongMethod, 405, 'METHOD_NOT_ALLOWED');
        expect(wrongMethod.headers.allow).toBe('DELETE');
      });
    });

    describe('deleteShift', () => {
      const path = (id: string) => `/labor/v1/shifts/${id}`;

      it('200: deletes by GUID in any case; again: 200 and nothing changes', async () => {
        const first = await send({
          operation: 'deleteShift',
          path: path(w.shift.guid.toUpperCase()),
        });
        expectSuccess('deleteShift', first);
        expect(first.body).toMatchObject({
          guid: w.shift.guid,
          deleted: true,
          entityType: 'Shift',
        });
        const again = await send({ operation: 'deleteShift', path: path(w.shift.guid) });
        expectSuccess('deleteShift', again);
        expect(again.body).toEqual(first.body);
      });

      it('200: deletes by external id, percent-encoded or not', async () => {
        for (const id of ['SCHEDULER:shift-1', 'SCHEDULER%3Ashift-1']) {
          const res = await send({ operation: 'deleteShift', path: path(id) });
          expectSuccess('deleteShift', res);
          expect(res.body.guid).toBe(w.shift.guid);
        }
      });

      it('200: a shift deleted before answers as it is', async () => {
        const res = await send({ operation: 'deleteShift', path: path(w.deletedShift.guid) });
        expectSuccess('deleteShift', res);
        expect(res.body.modifiedDate).toBe(w.deletedShift.modifiedDate);
      });

      it('400 VALIDATION_FAILED: neither a GUID nor an external identifier, or bad percent-encoding', async () => {
        for (const id of [
          'shift-42',
          'AUTH%3A',
          `${'A'.repeat(17)}:1`,
          'AUTH%3A1%202',
          'AUTH%3A%E0%A4%A',
        ]) {
          const res = await send({ operation: 'deleteShift', path: path(id) });
          expectProblem('deleteShift', res, 400, 'VALIDATION_FAILED');
          expect(res.body.errors[0].path).toBe('/params/shiftId');
          expect(res.body.instance).toBe(path(id));
        }
      });

      it("404 SHIFT_NOT_FOUND: unknown, or another restaurant's shift", async () => {
        for (const id of [newGuid(), w.otherShift.guid, 'SCHEDULER:no-such-shift']) {
          const res = await send({ operation: 'deleteShift', path: path(id) });
          expectProblem('deleteShift', res, 404, 'SHIFT_NOT_FOUND');
        }
        const theirs = (
          await t.store.shifts.find(w.other.guid, { kind: 'guid', guid: w.otherShift.guid })
        )._unsafeUnwrap();
        expect(theirs?.deleted).toBe(false);
      });

      it('401, 403, 405', async () => {
        expectProblem(
          'deleteShift',
          await send({ operation: 'deleteShift', path: path(newGuid()), token: 'x' }),
          401,
          'INVALID_TOKEN',
        );
        const employeesOnly = await tokenFor([w.restaurant.guid], {
          scope: 'labor.employees:write',
        });
        expectProblem(
          'deleteShift',
          await send({ operation: 'deleteShift', path: path(newGuid()), token: employeesOnly }),
          403,
          'INSUFFICIENT_SCOPE',
        );
        const res = await request(t.url).put(path(newGuid()));
        expectProblem('deleteShift', res, 405, 'METHOD_NOT_ALLOWED');
        expect(res.headers.allow).toBe('DELETE');
      });
    });

    describe('getRestaurant', () => {
      const path = (id: string) => `/restaurants/v1/restaurants/${id}`;

      it('200: the context restaurant, its GUID in any case', async () => {
        const res = await send({
          operation: 'getRestaurant',
          path: path(w.restaurant.guid.toUpperCase()),
        });
        expectSuccess('getRestaurant', res);
        expect(res.body.guid).toBe(w.restaurant.guid);
        expect(res.body.schedules.daySchedules).toMatchObject({
          identifier: 'hsk-2026-spring',
          weekday: {},
        });
      });

      it('200: an archived restaurant with includeArchived=true; 404 without', async () => {
        const context = w.archivedRestaurant.guid;
        const shown = await send({
          operation: 'getRestaurant',
          path: `${path(context)}?includeArchived=true`,
          context,
        });
        expectSuccess('getRestaurant', shown);
        expect(shown.body.general.archived).toBe(true);
        for (const query of ['', '?includeArchived=false']) {
          const hidden = await send({
            operation: 'getRestaurant',
            path: `${path(context)}${query}`,
            context,
          });
          expectProblem('getRestaurant', hidden, 404, 'RESTAURANT_NOT_FOUND');
        }
      });

      it('404 RESTAURANT_NOT_FOUND alike for a non-GUID, another restaurant and an unknown one', async () => {
        const bodies = [];
        for (const id of ['nope', '%E0%A4%A', w.other.guid, newGuid()]) {
          const res = await send({
            operation: 'getRestaurant',
            path: `${path(id)}?includeArchived=true`,
          });
          expectProblem('getRestaurant', res, 404, 'RESTAURANT_NOT_FOUND');
          bodies.push({ ...res.body, requestId: undefined, instance: undefined });
        }
        expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
      });

      it('400 VALIDATION_FAILED: includeArchived not a boolean, an unknown parameter, no context', async () => {
        for (const query of [
          '?includeArchived=yes',
          '?includeArchived=1',
          '?includeArchived=',
          '?limit=5',
        ]) {
          const res = await send({
            operation: 'getRestaurant',
            path: `${path(w.restaurant.guid)}${query}`,
          });
          expectProblem('getRestaurant', res, 400, 'VALIDATION_FAILED');
        }
        const noContext = await send({
          operation: 'getRestaurant',
          path: path(w.restaurant.guid),
          context: null,
        });
        expectProblem('getRestaurant', noContext, 400, 'VALIDATION_FAILED');
      });

      it('401, 403 for scope and restaurant, 405', async () => {
        expectProblem(
          'getRestaurant',
          await send({ operation: 'getRestaurant', path: path(w.restaurant.guid), token: null }),
          401,
          'INVALID_TOKEN',
        );
        const writeOnly = await tokenFor([w.restaurant.guid], { scope: 'labor.shifts:write' });
        expectProblem(
          'getRestaurant',
          await send({
            operation: 'getRestaurant',
            path: path(w.restaurant.guid),
            token: writeOnly,
          }),
          403,
          'INSUFFICIENT_SCOPE',
        );
        expectProblem(
          'getRestaurant',
          await send({
            operation: 'getRestaurant',
            path: path(w.other.guid),
            context: w.other.guid,
          }),
          403,
          'RESTAURANT_NOT_PERMITTED',
        );
        const res = await request(t.url).delete(path(w.restaurant.guid));
        expectProblem('getRestaurant', res, 405, 'METHOD_NOT_ALLOWED');
        expect(res.headers.allow).toBe('GET, HEAD');
      });
    });
  });

  describe(`${target.name}: 429, 500 and 503 of every operation`, () => {
    const calls = (w: World): Call[] => [
      {
        operation: 'unarchiveEmployee',
        path: `/labor/v1/employees/${w.archivedEmployee.guid}/unarchive`,
      },
      { operation: 'archiveEmployee', path: `/labor/v1/employees/${w.employee.guid}` },
      { operation: 'deleteShift', path: `/labor/v1/shifts/${w.shift.guid}` },
      { operation: 'getRestaurant', path: `/restaurants/v1/restaurants/${w.restaurant.guid}` },
    ];

    it('429 RATE_LIMITED per second, with Retry-After and the RateLimit-* headers', async () => {
      const t = await target.app({ rateLimit: { perSecond: 1, per15Minutes: 1000 } });
      const token = await tokenFor('*');
      for (const c of calls(t.world)) {
        // One request per second: of three at once, at most two fall in two windows.
        const burst = await Promise.all([1, 2, 3].map(() => call(t.url, token, t.world, c)));
        const refused = burst.filter((res) => res.status === 429);
        expect(refused.length).toBeGreaterThan(0);
        // The per-second window is the one closest to running out, and the one that refused.
        for (const res of burst) {
          expect(res.headers['ratelimit-limit']).toBe('1');
          expect(res.headers['ratelimit-remaining']).toBe('0');
        }
        for (const res of refused) {
          expectProblem(c.operation, res, 429, 'RATE_LIMITED');
          expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
        }
      }
    });

    it('429 RATE_LIMITED per 15 minutes, with Retry-After until the window ends', async () => {
      const t = await target.app({ rateLimit: { perSecond: 100, per15Minutes: 2 } });
      const token = await tokenFor('*');
      const [c] = calls(t.world).slice(3);
      if (c === undefined) throw new Error('no call');
      expect((await call(t.url, token, t.world, c)).status).toBe(200);
      expect((await call(t.url, token, t.world, c)).status).toBe(200);
      const refused = await call(t.url, token, t.world, c);
      expectProblem(c.operation, refused, 429, 'RATE_LIMITED');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(800);
    });

    it('limits each restaurant context on its own', async () => {
      const t = await target.app({ rateLimit: { perSecond: 1, per15Minutes: 1000 } });
      const token = await tokenFor('*');
      const get = (guid: string) =>
        call(t.url, token, t.world, {
          operation: 'getRestaurant',
          path: `/restaurants/v1/restaurants/${guid}`,
          context: guid,
        });
      expect((await get(t.world.restaurant.guid)).status).toBe(200);
      expect((await get(t.world.restaurant.guid)).status).toBe(429);
      expect((await get(t.world.other.guid)).status).toBe(200);
    });

    it('500 INTERNAL_ERROR with nothing internal, when a store throws', async () => {
      const t = await target.app({ fault: 'store-throws' });
      const token = await tokenFor('*');
      for (const c of calls(t.world)) {
        const res = await call(t.url, token, t.world, c);
        expectProblem(c.operation, res, 500, 'INTERNAL_ERROR');
        expect(JSON.stringify(res.body)).not.toMatch(/hunter2|postgres|Error|at /);
      }
    });

    it('503 STORAGE_UNAVAILABLE with Retry-After, when the store is down', async () => {
      const t = await target.app({ fault: 'store-unavailable' });
      const token = await tokenFor('*');
      for (const c of calls(t.world)) {
        const res = await call(t.url, token, t.world, c);
        expectProblem(c.operation, res, 503, 'STORAGE_UNAVAILABLE');
        expect(res.headers['retry-after']).toBe('1');
        expect(JSON.stringify(res.body)).not.toContain('ECONNREFUSED');
      }
    });

    it('503 WRITE_CONTENTION when every write loses its compare-and-set', async () => {
      const t = await target.app({ fault: 'writes-conflict', maxAttempts: 2 });
      const token = await tokenFor('*');
      for (const c of calls(t.world).filter((x) => x.operation !== 'getRestaurant')) {
        const res = await call(t.url, token, t.world, c);
        expectProblem(c.operation, res, 503, 'WRITE_CONTENTION');
        expect(res.headers['retry-after']).toBe('1');
      }
    });

    it('503 REQUEST_TIMEOUT when the store does not answer in time', async () => {
      const t = await target.app({ fault: 'store-never-answers', requestTimeoutMs: 100 });
      const token = await tokenFor('*');
      for (const c of calls(t.world)) {
        const res = await call(t.url, token, t.world, c);
        expectProblem(c.operation, res, 503, 'REQUEST_TIMEOUT');
        expect(res.headers['retry-after']).toBe('1');
      }
    });

    it('503 AUTH_UNAVAILABLE when tokens cannot be verified', async () => {
      const t = await target.app({ fault: 'auth-unavailable' });
      for (const c of calls(t.world)) {
        const res = await call(t.url, 'any.token.here', t.world, c);
        expectProblem(c.operation, res, 503, 'AUTH_UNAVAILABLE');
      }
    });
  });
}
