// Metrics and traces of the API, over real HTTP to each adapter's app: the counts a prom-client
// registry holds after requests of several operations and statuses, and the spans an OpenTelemetry
// SDK registered here (an in-memory exporter) receives, nested by the SDK's context manager.
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import {
  createMemoryStore,
  type Restaurant,
  storageUnavailable,
  toResultAsync,
} from '@workforce-kit/core';
import type { ApiStore } from '@workforce-kit/http';
import { errAsync, ResultAsync } from 'neverthrow';
import { Registry, register } from 'prom-client';
import request, { type Test } from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ADAPTERS,
  aWorld,
  closeApps,
  type TestApp,
  testApp,
  tokenFor,
  type World,
} from './support/harness.js';

const CONTEXT = 'Platform-Restaurant-External-ID';
const exporter = new InMemorySpanExporter();

/** Registers the OpenTelemetry SDK whose spans the tests read. */
function registerSdk(): void {
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
}

beforeAll(() => {
  registerSdk();
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});

afterAll(async () => {
  await closeApps();
  trace.disable();
  context.disable();
  propagation.disable();
});

/** One sample of the Prometheus text: a metric's name, its labels and its value. */
interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a registry, parsed from the text it serves (comments left out). */
async function samples(registry: Registry): Promise<Sample[]> {
  const text = await registry.metrics();
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (match === null) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]),
      );
      return { name: match[1] ?? '', labels, value: Number(match[3]) };
    });
}

/** The value of the sample of `name` whose labels are `labels` (exactly), or undefined. */
function sampleValue(
  all: readonly Sample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return all.find(
    (sample) =>
      sample.name === name && JSON.stringify(Object.entries(sample.labels).sort()) === wanted,
  )?.value;
}

const restaurantPath = (guid: string) => `/restaurants/v1/restaurants/${guid}`;

/** GET of the app's restaurant, in its context, by a client whose `token` may act for it. */
function getRestaurantAs(app: TestApp, token: string): Test {
  const { guid } = app.world.restaurant;
  return request(app.url)
    .get(restaurantPath(guid))
    .set('Authorization', `Bearer ${token}`)
    .set(CONTEXT, guid);
}

/** The ended spans of the request with this id: its server span and the spans of its trace. */
function spansOf(requestId: string): { server: ReadableSpan; trace: ReadableSpan[] } {
  const all = exporter.getFinishedSpans();
  const server = all.find((span) => span.attributes['workforce_kit.request_id'] === requestId);
  if (server === undefined) throw new Error(`no span of request ${requestId} ended yet`);
  const { traceId } = server.spanContext();
  return { server, trace: all.filter((span) => span.spanContext().traceId === traceId) };
}

/** A memory store of `world` whose restaurant lookups answer once `held` resolves. */
function heldStore(world: World, held: Promise<void>): ApiStore {
  const { employees, shifts, restaurants } = createMemoryStore(world.seed);
  return {
    employees,
    shifts,
    restaurants: {
      findByGuid: (guid) =>
        toResultAsync(restaurants.findByGuid(guid)).andThen((found: Restaurant | null) =>
          ResultAsync.fromSafePromise(held).map(() => found),
        ),
    },
  };
}

/** A memory store of `world` whose restaurant lookups fail: the store is down. */
function downStore(world: World): ApiStore {
  return {
    ...createMemoryStore(world.seed),
    restaurants: {
      findByGuid: () => errAsync(storageUnavailable('restaurants.findByGuid', new Error('down'))),
    },
  };
}

for (const adapter of ADAPTERS) {
  describe(`${adapter.name}: metrics`, () => {
    it('counts requests by operation and status (none for the 404 and 405 of no operation), 429s by window, store calls, and in flight back to 0', async () => {
      const registry = new Registry();
      const app = await testApp(adapter, {
        metrics: { registry },
        rateLimit: { perSecond: 1000, per15Minutes: 4 },
      });
      const { world } = app;
      const token = await tokenFor([world.restaurant.guid]);
      const authorized = (test: Test) =>
        test.set('Authorization', `Bearer ${token}`).set(CONTEXT, world.restaurant.guid);
      const statuses = [
        (await getRestaurantAs(app, token)).status,
        (await getRestaurantAs(app, token)).status,
        (await request(app.url).get(restaurantPath(world.restaurant.guid))).status,
        (await request(app.url).get('/labor/v1/nowhere')).status,
        (await request(app.url).delete(restaurantPath(world.restaurant.guid))).status,
        (
          await authorized(
            request(app.url)
              .put(`/labor/v1/employees/${world.archivedEmployee.guid}/unarchive`)
              .set('Content-Type', 'application/json'),
          )
        ).status,
        // Not the context's restaurant: the operation's own 404.
        (await authorized(request(app.url).get(restaurantPath(world.other.guid)))).status,
        // The fifth request of the restaurant context in 15 minutes.
        (await getRestaurantAs(app, token)).status,
      ];
      expect(statuses).toEqual([200, 200, 401, 404, 405, 200, 404, 429]);

      // A request is counted when its response closes, which may follow the client's read.
      await vi.waitFor(async () => {
        const all = await samples(registry);
        expect(
          sampleValue(all, 'workforce_kit_http_requests_total', {
            operation: 'getRestaurant',
            status: '429',
          }),
        ).toBe(1);
        expect(sampleValue(all, 'workforce_kit_http_requests_in_flight')).toBe(0);
      });
      const all = await samples(registry);
      const requests = (operation: string, status: string) =>
        sampleValue(all, 'workforce_kit_http_requests_total', { operation, status });
      expect(requests('getRestaurant', '200')).toBe(2);
      expect(requests('getRestaurant', '401')).toBe(1);
      expect(requests('getRestaurant', '404')).toBe(1);
      expect(requests('none', '404')).toBe(1);
      expect(requests('none', '405')).toBe(1);
      expect(requests('unarchiveEmployee', '200')).toBe(1);
      expect(requests('archiveEmployee', '200')).toBeUndefined();
      const total = all
        .filter((sample) => sample.name === 'workforce_kit_http_requests_total')
        .reduce((sum, sample) => sum + sample.value, 0);
      expect(total).toBe(statuses.length);

      expect(
        sampleValue(all, 'workforce_kit_http_request_duration_seconds_count', {
          operation: 'getRestaurant',
          status: '200',
        }),
      ).toBe(2);
      const sum = sampleValue(all, 'workforce_kit_http_request_duration_seconds_sum', {
        operation: 'getRestaurant',
        status: '200',
      });
      expect(sum).toBeGreaterThan(0);
      expect(sum).toBeLessThan(10);

      expect(
        sampleValue(all, 'workforce_kit_rate_limit_refusals_total', { window: '15 minutes' }),
      ).toBe(1);
      expect(
        sampleValue(all, 'workforce_kit_rate_limit_refusals_total', { window: 'second' }),
      ).toBe(0);

      const storeCalls = (call: string) =>
        sampleValue(all, 'workforce_kit_store_call_duration_seconds_count', { call });
      expect(storeCalls('employees.write')).toBe(1);
      expect(storeCalls('employees.find')).toBeGreaterThanOrEqual(1);
      // The two 200s of getRestaurant; its 404 (not the context's restaurant) is decided before.
      expect(storeCalls('restaurants.findByGuid')).toBe(2);
      expect(storeCalls('shifts.write')).toBe(0);
    });

    it('counts the refusals of the per-second window under its name', async () => {
      const registry = new Registry();
      const app = await testApp(adapter, { metrics: { registry }, rateLimit: { perSecond: 1 } });
      const token = await tokenFor([app.world.restaurant.guid]);
      const burst = await Promise.all(Array.from({ length: 4 }, () => getRestaurantAs(app, token)));
      const refused = burst.filter((res) => res.status === 429).length;
      expect(refused).toBeGreaterThan(0);
      const all = await samples(registry);
      expect(
        sampleValue(all, 'workforce_kit_rate_limit_refusals_total', { window: 'second' }),
      ).toBe(refused);
      expect(
        sampleValue(all, 'workforce_kit_rate_limit_refusals_total', { window: '15 minutes' }),
      ).toBe(0);
    });

    it('holds a request in flight until its response closes', async () => {
      const registry = new Registry();
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const world = aWorld();
      const app = await testApp(
        adapter,
        { metrics: { registry }, store: heldStore(world, held) },
        world,
      );
      const token = await tokenFor([app.world.restaurant.guid]);
      const pending = getRestaurantAs(app, token).then((res) => res);
      await vi.waitFor(async () => {
        expect(sampleValue(await samples(registry), 'workforce_kit_http_requests_in_flight')).toBe(
          1,
        );
      });
      release();
      expect((await pending).status).toBe(200);
      await vi.waitFor(async () => {
        expect(sampleValue(await samples(registry), 'workforce_kit_http_requests_in_flight')).toBe(
          0,
        );
      });
    });

    it('keeps no metric and makes no span without the options, when no SDK is registered as the app is built', async () => {
      trace.disable();
      let app: TestApp;
      try {
        app = await testApp(adapter);
      } finally {
        // Registered again before the request: the app decided at creation, and wrapped nothing.
        registerSdk();
      }
      const token = await tokenFor([app.world.restaurant.guid]);
      const res = await getRestaurantAs(app, token);
      expect(res.status).toBe(200);
      await vi.waitFor(() => expect(app.logs.map((line) => line.msg)).toContain('request'));
      // Nothing is registered anywhere, not even in prom-client's global registry.
      expect(await register.metrics()).not.toContain('workforce_kit_');
      const requestId = String(res.headers['x-request-id']);
      expect(() => spansOf(requestId)).toThrow(/no span/);
      expect(app.logs.find((line) => line.requestId === requestId)).not.toHaveProperty('traceId');
    });
  });

  describe(`${adapter.name}: traces`, () => {
    it("makes a SERVER span per request, with the store's spans as its children and its traceId on the log lines", async () => {
      const app = await testApp(adapter, { tracing: true });
      const token = await tokenFor([app.world.restaurant.guid]);
      const res = await getRestaurantAs(app, token);
      expect(res.status).toBe(200);
      const requestId = String(res.headers['x-request-id']);

      const { server, trace: spans } = await vi.waitFor(() => spansOf(requestId));
      expect(server.name).toBe('GET /restaurants/v1/restaurants/{restaurantGUID}');
      expect(server.kind).toBe(SpanKind.SERVER);
      expect(server.attributes).toMatchObject({
        'http.request.method': 'GET',
        'http.route': '/restaurants/v1/restaurants/{restaurantGUID}',
        'http.response.status_code': 200,
        'workforce_kit.operation': 'getRestaurant',
        'workforce_kit.request_id': requestId,
      });
      expect(server.status.code).toBe(SpanStatusCode.UNSET);
      // No traceparent: a new trace.
      expect(server.parentSpanContext).toBeUndefined();

      const children = spans.filter((span) => span !== server);
      expect(children.map((span) => span.name)).toContain('restaurants.findByGuid');
      for (const child of children) {
        expect(child.kind).toBe(SpanKind.INTERNAL);
        expect(child.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      }

      await vi.waitFor(() => expect(app.logs.map((line) => line.requestId)).toContain(requestId));
      const logged = app.logs.filter((line) => line.requestId === requestId);
      expect(logged.length).toBeGreaterThan(0);
      for (const line of logged) expect(line.traceId).toBe(server.spanContext().traceId);
    });

    it('traces without the option when an SDK is registered as the app is built', async () => {
      const app = await testApp(adapter);
      const token = await tokenFor([app.world.restaurant.guid]);
      const res = await getRestaurantAs(app, token);
      expect(res.status).toBe(200);
      const { server, trace: spans } = await vi.waitFor(() =>
        spansOf(String(res.headers['x-request-id'])),
      );
      expect(server.name).toBe('GET /restaurants/v1/restaurants/{restaurantGUID}');
      expect(spans.map((span) => span.name)).toContain('restaurants.findByGuid');
    });

    it('makes no span with tracing: false, an SDK registered or not', async () => {
      const app = await testApp(adapter, { tracing: false });
      const token = await tokenFor([app.world.restaurant.guid]);
      const res = await getRestaurantAs(app, token);
      expect(res.status).toBe(200);
      await vi.waitFor(() => expect(app.logs.map((line) => line.msg)).toContain('request'));
      expect(() => spansOf(String(res.headers['x-request-id']))).toThrow(/no span/);
    });

    it('continues the trace of an incoming traceparent', async () => {
      const app = await testApp(adapter, { tracing: true });
      const token = await tokenFor([app.world.restaurant.guid]);
      const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
      const parentId = '00f067aa0ba902b7';
      const res = await request(app.url)
        .put(`/labor/v1/employees/${app.world.archivedEmployee.guid}/unarchive`)
        .set('Content-Type', 'application/json')
        .set('Authorization', `Bearer ${token}`)
        .set(CONTEXT, app.world.restaurant.guid)
        .set('traceparent', `00-${traceId}-${parentId}-01`);
      expect(res.status).toBe(200);

      const { server, trace: spans } = await vi.waitFor(() =>
        spansOf(String(res.headers['x-request-id'])),
      );
      expect(server.name).toBe('PUT /labor/v1/employees/{employeeId}/unarchive');
      expect(server.spanContext().traceId).toBe(traceId);
      expect(server.parentSpanContext?.spanId).toBe(parentId);
      expect(spans.map((span) => span.name)).toEqual(
        expect.arrayContaining(['employees.find', 'employees.write']),
      );
    });

    it('marks the span of a 5xx an error, and the failed store call too; a request of no operation is named by its method', async () => {
      const world = aWorld();
      const app = await testApp(adapter, { tracing: true, store: downStore(world) }, world);
      const token = await tokenFor([app.world.restaurant.guid]);
      const res = await getRestaurantAs(app, token);
      expect(res.status).toBe(503);
      const { server, trace: spans } = await vi.waitFor(() =>
        spansOf(String(res.headers['x-request-id'])),
      );
      expect(server.status.code).toBe(SpanStatusCode.ERROR);
      expect(server.attributes['http.response.status_code']).toBe(503);
      const lookup = spans.find((span) => span.name === 'restaurants.findByGuid');
      expect(lookup?.status.code).toBe(SpanStatusCode.ERROR);
      expect(lookup?.attributes['workforce_kit.store.error']).toBe('StorageUnavailable');

      const nowhere = await request(app.url).get('/labor/v1/nowhere');
      expect(nowhere.status).toBe(404);
      const none = await vi.waitFor(() => spansOf(String(nowhere.headers['x-request-id'])).server);
      expect(none.name).toBe('GET');
      expect(none.attributes).toMatchObject({
        'workforce_kit.operation': 'none',
        'http.response.status_code': 404,
      });
      expect(none.attributes).not.toHaveProperty('http.route');
      expect(none.status.code).toBe(SpanStatusCode.UNSET);
    });
  });
}
