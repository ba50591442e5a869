// The API's metrics are prom-client's own classes, registered through their `registers` option;
// the request counter is read from the duration histogram, so the two never disagree.
import { openapiDocument } from '@workforce-kit/types';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { httpMetrics } from '../src/http-metrics.js';
import { type ApiOperation, readOperations } from '../src/operations.js';
import { createTelemetry } from '../src/telemetry.js';

const operations = readOperations(openapiDocument);
const getRestaurant = operations.find(({ id }) => id === 'getRestaurant') as ApiOperation;

/** The values of one metric of `registry`, as `name{labels} value` lines. */
async function linesOf(registry: Registry, name: string): Promise<string[]> {
  const text = await registry.getSingleMetricAsString(name);
  return text.split('\n').filter((line) => !line.startsWith('#'));
}

describe('httpMetrics', () => {
  it("registers prom-client's own counters, histograms and gauge, and nothing else", async () => {
    const registry = new Registry();
    httpMetrics(registry);
    const kinds = registry
      .getMetricsAsArray()
      .map((metric) =>
        metric instanceof Counter
          ? 'Counter'
          : metric instanceof Histogram
            ? 'Histogram'
            : metric instanceof Gauge
              ? 'Gauge'
              : 'another object',
      );
    expect(kinds).toEqual(['Counter', 'Histogram', 'Gauge', 'Counter', 'Histogram']);
  });

  it('counts each request once: the counter is the histogram’s count, before and after a reset', async () => {
    const registry = new Registry();
    const telemetry = createTelemetry(operations, httpMetrics(registry), false);
    const answer = (statusCode: number) =>
      telemetry
        .start(getRestaurant, 'GET', {}, 'request-id')
        .end({ statusCode, writableFinished: true }, 1);
    /** The counter's lines, and the histogram's counts written as the counter's lines. */
    const bothCounts = async () => ({
      counter: await linesOf(registry, 'workforce_kit_http_requests_total'),
      histogram: (await linesOf(registry, 'workforce_kit_http_request_duration_seconds'))
        .filter((line) => line.startsWith('workforce_kit_http_request_duration_seconds_count'))
        .map((line) => line.replace('request_duration_seconds_count', 'requests_total')),
    });
    answer(200);
    answer(200);
    answer(404);
    const counted = await bothCounts();
    expect(counted.counter).toEqual([
      'workforce_kit_http_requests_total{operation="getRestaurant",status="200"} 2',
      'workforce_kit_http_requests_total{operation="getRestaurant",status="404"} 1',
    ]);
    expect(counted.histogram).toEqual(counted.counter);

    registry.resetMetrics();
    answer(200);
    const recounted = await bothCounts();
    expect(recounted.counter).toContain(
      'workforce_kit_http_requests_total{operation="getRestaurant",status="200"} 1',
    );
    expect(recounted.histogram).toEqual(recounted.counter);
  });

  it('reads the requests in flight when scraped', async () => {
    const registry = new Registry();
    const telemetry = createTelemetry(operations, httpMetrics(registry), false);
    const first = telemetry.start(getRestaurant, 'GET', {}, 'request-id');
    telemetry.start(getRestaurant, 'GET', {}, 'request-id');
    expect(await linesOf(registry, 'workforce_kit_http_requests_in_flight')).toEqual([
      'workforce_kit_http_requests_in_flight 2',
    ]);
    first.end({ statusCode: 200, writableFinished: true }, 1);
    registry.resetMetrics();
    expect(await linesOf(registry, 'workforce_kit_http_requests_in_flight')).toEqual([
      'workforce_kit_http_requests_in_flight 1',
    ]);
  });
});
