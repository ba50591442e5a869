// The API's metrics, kept in prom-client's own classes: the text a registry serves must be, byte for
// byte, what prom-client's counters, histograms and gauge, defined here as a user would define them,
// print for the same observations.
import { createMemoryStore } from '@workforce-kit/core';
import { aRestaurant, asynchronousStore } from '@workforce-kit/core/testing';
import { openapiDocument } from '@workforce-kit/types';
import { Counter, Gauge, Histogram, Registry, type RegistryContentType } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { httpMetrics } from '../src/http-metrics.js';
import { instrumentedStore } from '../src/instrumented-store.js';
import { type ApiOperation, readOperations } from '../src/operations.js';
import { createTelemetry, type RequestTelemetry } from '../src/telemetry.js';

const operations = readOperations(openapiDocument);
const operation = (id: string): ApiOperation => {
  const found = operations.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no operation ${id}`);
  return found;
};

/** The metrics as the API kept them in prom-client before: names, help, labels and buckets. */
function promClientMetrics(registry: Registry) {
  const registers = [registry];
  return {
    requests: new Counter({
      name: 'workforce_kit_http_requests_total',
      help: 'Requests the API answered, by operation (none: its 404 and 405) and status.',
      labelNames: ['operation', 'status'] as const,
      registers,
    }),
    duration: new Histogram({
      name: 'workforce_kit_http_request_duration_seconds',
      help: 'Time from taking a request to closing its response, by operation and status.',
      labelNames: ['operation', 'status'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    inFlight: new Gauge({
      name: 'workforce_kit_http_requests_in_flight',
      help: 'Requests the API has taken and not answered yet.',
      registers,
    }),
    refusals: new Counter({
      name: 'workforce_kit_rate_limit_refusals_total',
      help: 'Requests refused with 429, by the rate-limit window that refused them.',
      labelNames: ['window'] as const,
      registers,
    }),
    storeCalls: new Histogram({
      name: 'workforce_kit_store_call_duration_seconds',
      help: "Duration of the store's port calls, by call (employees.find, shifts.write, …).",
      labelNames: ['call'] as const,
      buckets: [
        0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
        1, 2.5,
      ],
      registers,
    }),
  };
}

/** The store's calls, in the order the API's instrumented store makes their series. */
const STORE_CALLS = [
  'employees.find',
  'employees.write',
  'shifts.find',
  'shifts.write',
  'restaurants.findByGuid',
] as const;

/** performance.now as the code under test reads it: set by the test. */
let now = 0;
beforeEach(() => {
  now = 1_000;
  vi.spyOn(performance, 'now').mockImplementation(() => now);
});
afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * The same observations made twice: through the API's telemetry and instrumented store (counted
 * in plain numbers), and on prom-client's metrics as the API made them before.
 */
function observedTwice(ours: Registry, theirs: Registry) {
  const metrics = httpMetrics(ours);
  const telemetry = createTelemetry(operations, metrics, false);
  const reference = promClientMetrics(theirs);
  // As createApi's countRefusals and instrumentedStore do at start-up.
  for (const window of ['second', '15 minutes']) {
    metrics.rateLimitRefusals.labels(window).inc(0);
    reference.refusals.labels(window).inc(0);
  }
  // A store that answers later, so that a call's duration is the time the test lets pass.
  const store = instrumentedStore(
    asynchronousStore(createMemoryStore({ restaurants: [], employees: [], shifts: [] })),
    metrics,
    undefined,
  );
  for (const call of STORE_CALLS) reference.storeCalls.zero({ call });

  return {
    /** A request of `id` (undefined: no operation) taken now, answered `elapsedMs` later. */
    start(id: string | undefined): (elapsedMs: number, status: number | 'aborted') => void {
      const started = now;
      const observed: RequestTelemetry = telemetry.start(
        id === undefined ? undefined : operation(id),
        'GET',
        {},
        'request-id',
      );
      reference.inFlight.inc();
      return (elapsedMs, status) => {
        now = started + elapsedMs;
        observed.end(
          status === 'aborted'
            ? { statusCode: 200, writableFinished: false }
            : { statusCode: status, writableFinished: true },
          now - started,
        );
        const labels = [id ?? 'none', String(status)] as const;
        reference.requests.labels(...labels).inc();
        reference.duration.labels(...labels).observe((now - started) / 1000);
        reference.inFlight.dec();
      };
    },
    request(id: string | undefined, elapsedMs: number, status: number | 'aborted'): void {
      this.start(id)(elapsedMs, status);
    },
    /** A lookup of a restaurant through the instrumented store, taking `elapsedMs`. */
    async storeCall(elapsedMs: number): Promise<void> {
      const started = now;
      const lookup = store.restaurants.findByGuid(aRestaurant().guid);
      now = started + elapsedMs;
      await lookup;
      reference.storeCalls.labels('restaurants.findByGuid').observe((now - started) / 1000);
    },
    refusal(window: 'second' | '15 minutes'): void {
      metrics.rateLimitRefusals.labels(window).inc();
      reference.refusals.labels(window).inc();
    },
  };
}

/** A registry that serves `contentType` (prom-client's constructor is typed with none). */
function registryIn(contentType: RegistryContentType): Registry {
  const registry = new Registry<RegistryContentType>();
  registry.setContentType(contentType);
  return registry as Registry;
}

describe.each([
  ['Prometheus', Registry.PROMETHEUS_CONTENT_TYPE],
  ['OpenMetrics', Registry.OPENMETRICS_CONTENT_TYPE],
] as const)('/metrics in the %s format', (_name, contentType) => {
  it("prints, byte for byte, what prom-client's metrics print for the same observations", async () => {
    const ours = registryIn(contentType);
    const theirs = registryIn(contentType);
    const both = observedTwice(ours, theirs);
    // Nothing observed yet: the refusal windows and the store calls at 0, no request series.
    expect(await ours.metrics()).toBe(await theirs.metrics());

    // Statuses the spec documents and one it does not (418), aborted, the 404 and 405 of no
    // operation; durations below the first bucket, on bounds (0.5 ms, 10 ms, 1 s), between them
    // and beyond the last (20 s: +Inf only); series first seen in an interleaved order.
    both.request('getRestaurant', 0.3, 200);
    both.request('archiveEmployee', 0.5, 200);
    both.request(undefined, 10, 404);
    both.request('getRestaurant', 1000, 200);
    both.request('getRestaurant', 12.345678, 401);
    both.request('deleteShift', 20_000, 200);
    both.request('unarchiveEmployee', 3.3, 'aborted');
    both.request('getRestaurant', 0, 418);
    both.request(undefined, 0.75, 405);
    both.request('getRestaurant', 7.1, 200);
    both.refusal('15 minutes');
    await both.storeCall(0.02);
    await both.storeCall(0.25);
    await both.storeCall(3_000);
    // Two requests still in flight when scraped.
    const first = both.start('getRestaurant');
    const second = both.start('archiveEmployee');
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain('workforce_kit_http_requests_in_flight 2');
    expect(text.endsWith('# EOF\n')).toBe(contentType === Registry.OPENMETRICS_CONTENT_TYPE);
    expect(text).toContain(
      'workforce_kit_http_request_duration_seconds_bucket{le="+Inf",operation="getRestaurant",status="200"} 3',
    );

    // Scraped again after more: the counts go on from where they were.
    first(2.5, 200);
    second(0.1, 409);
    both.request('getRestaurant', 0.2, 418);
    both.refusal('second');
    both.refusal('second');
    await both.storeCall(0.1);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toBe(await theirs.metrics());
  });
});

/** A registry's metrics as JSON, as a consumer of `getMetricsAsJSON` reads them. */
async function asJson(registry: Registry) {
  return (await registry.getMetricsAsJSON()).map(({ name, help, type, aggregator, values }) => ({
    name,
    help,
    type,
    aggregator,
    values: values.map((value) => ({
      value: value.value,
      labels: value.labels,
      metricName: (value as { metricName?: string }).metricName,
    })),
  }));
}

describe('httpMetrics', () => {
  it("gives getMetricsAsJSON what prom-client's own metrics give for the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const both = observedTwice(ours, theirs);
    both.request('getRestaurant', 0.3, 200);
    both.request(undefined, 10, 404);
    both.refusal('second');
    await both.storeCall(0.25);
    expect(await asJson(ours)).toEqual(await asJson(theirs));
  });

  it('counts from 0 again once the registry resets its metrics', async () => {
    const registry = new Registry();
    const metrics = httpMetrics(registry);
    const telemetry = createTelemetry(operations, metrics, false);
    const observed = telemetry.start(operation('getRestaurant'), 'GET', {}, 'request-id');
    observed.end({ statusCode: 200, writableFinished: true }, 1);
    metrics.rateLimitRefusals.labels('second').inc(2);
    registry.resetMetrics();
    telemetry
      .start(operation('getRestaurant'), 'GET', {}, 'request-id')
      .end({ statusCode: 200, writableFinished: true }, 1);
    const text = await registry.metrics();
    expect(text).toContain(
      'workforce_kit_http_requests_total{operation="getRestaurant",status="200"} 1',
    );
    expect(text).toContain('workforce_kit_rate_limit_refusals_total{window="second"} 0');
  });

  it("gives two APIs on one registry the same metrics: their counts add up, as prom-client's did", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const one = observedTwice(ours, theirs);
    one.request('getRestaurant', 1, 200);
    expect(httpMetrics(ours)).toBe(httpMetrics(ours));
    // A second API: its own telemetry over the registry's metrics (prom-client: the same
    // metrics again, as the API took them from the registry before).
    const telemetry = createTelemetry(operations, httpMetrics(ours), false);
    const reference = theirs.getSingleMetric('workforce_kit_http_requests_total') as Counter;
    const duration = theirs.getSingleMetric(
      'workforce_kit_http_request_duration_seconds',
    ) as Histogram;
    const started = now;
    const observed = telemetry.start(operation('getRestaurant'), 'GET', {}, 'request-id');
    now += 4;
    observed.end({ statusCode: 200, writableFinished: true }, now - started);
    reference.labels('getRestaurant', '200').inc();
    duration.labels('getRestaurant', '200').observe((now - started) / 1000);
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain(
      'workforce_kit_http_requests_total{operation="getRestaurant",status="200"} 2',
    );
  });

  it('registers new metrics in a registry cleared since, and counts from 0 there', async () => {
    const registry = new Registry();
    const before = httpMetrics(registry);
    before.rateLimitRefusals.labels('second').inc(3);
    registry.clear();
    const after = httpMetrics(registry);
    expect(after).not.toBe(before);
    after.rateLimitRefusals.labels('second').inc();
    expect(await registry.metrics()).toContain(
      'workforce_kit_rate_limit_refusals_total{window="second"} 1',
    );
  });

  it("refuses a registry holding another metric of one of the API's names", () => {
    const registry = new Registry();
    new Counter({
      name: 'workforce_kit_http_requests_total',
      help: 'other',
      registers: [registry],
    });
    expect(() => httpMetrics(registry)).toThrow(/already been registered/);
  });
});
