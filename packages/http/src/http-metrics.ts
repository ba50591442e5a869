import type { RateLimitWindow } from '@workforce-kit/core';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/**
 * The API's Prometheus metrics: where they are registered. The host serves the registry
 * (`GET /metrics`: `await registry.metrics()`, of type `registry.contentType`).
 *
 * The API keeps, in that registry:
 * - `workforce_kit_http_requests_total{operation,status}`: requests answered, by operation id
 *   (`none` for a path or method under the API's prefixes that names no operation: its 404 and
 *   405) and status (`aborted` when the client closed the connection before the answer);
 * - `workforce_kit_http_request_duration_seconds{operation,status}`: their durations;
 * - `workforce_kit_http_requests_in_flight`: requests taken and not yet answered;
 * - `workforce_kit_rate_limit_refusals_total{window}`: 429s, by the window that refused
 *   (`second`, `15 minutes`);
 * - `workforce_kit_store_call_duration_seconds{call}`: each call of the store's ports
 *   (`employees.find`, `employees.write`, `shifts.find`, `shifts.write`,
 *   `restaurants.findByGuid`).
 *
 * Two APIs given the same registry share these metrics (their counts add up).
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * const registry = new Registry();
 * app.use(createRouter({ store, auth, metrics: { registry } }));
 * app.get('/metrics', async (_req, res) => {
 *   res.type(registry.contentType).send(await registry.metrics());
 * });
 * ```
 */
export interface MetricsOptions {
  /** The prom-client registry to keep the metrics in (the host's own, or prom-client's `register`). */
  readonly registry: Registry;
}

/** The name of the request counter (the metric an earlier API's registration is known by). */
const REQUESTS_TOTAL = 'workforce_kit_http_requests_total';
const REQUEST_DURATION = 'workforce_kit_http_request_duration_seconds';

/** Buckets of a request's duration, in seconds: from half a millisecond to the request timeout. */
const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Buckets of a store call's duration, in seconds: from 50 µs (in memory) to seconds. */
const STORE_BUCKETS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

/** The windows a refusal is counted by, each printed from the start. */
const REFUSAL_WINDOWS: readonly RateLimitWindow['name'][] = ['second', '15 minutes'];

/**
 * The API's metrics in one registry, prom-client's own. Made once per registry: two APIs given
 * the same registry observe the same metrics (their counts add up).
 */
export interface HttpMetrics {
  /**
   * Requests answered, by operation and status: their durations in seconds
   * (`workforce_kit_http_request_duration_seconds`), whose counts
   * `workforce_kit_http_requests_total` prints when scraped.
   */
  readonly requests: Histogram<'operation' | 'status'>;
  /** Requests taken and not answered yet, read by `workforce_kit_http_requests_in_flight`. */
  readonly inFlight: { value: number };
  /** 429s by the window that refused (`workforce_kit_rate_limit_refusals_total`). */
  readonly rateLimitRefusals: Counter<'window'>;
  /** The store's port calls' durations (`workforce_kit_store_call_duration_seconds`). */
  readonly storeCalls: Histogram<'call'>;
}

/**
 * Makes each window's refusal series printed, at 0 until its first refusal (so that a rate of
 * refusals is defined from the start, and again after the registry resets its metrics).
 */
function listWindows(refusals: Counter<'window'>): void {
  for (const window of REFUSAL_WINDOWS) refusals.inc({ window }, 0);
}

/** The API's metrics of each registry, and the request counter registered there. */
const ofRegistry = new WeakMap<Registry, { metrics: HttpMetrics; requestsTotal: Counter }>();

/**
 * Registers the API's metrics in `registry`, or gives those an earlier API registered there. A
 * registry that holds a metric of the same name made elsewhere throws (prom-client's error).
 */
export function httpMetrics(registry: Registry): HttpMetrics {
  const known = ofRegistry.get(registry);
  if (
    known !== undefined &&
    Object.is(registry.getSingleMetric(REQUESTS_TOTAL), known.requestsTotal)
  ) {
    return known.metrics;
  }
  const registers = [registry];
  const inFlight = { value: 0 };
  // Registered in the order they print. The counter is the histogram's counts, read when
  // scraped, so that a request is observed once.
  const requestsTotal = new Counter({
    name: REQUESTS_TOTAL,
    help: 'Requests the API answered, by operation (none: its 404 and 405) and status.',
    labelNames: ['operation', 'status'] as const,
    registers,
    async collect() {
      const { values } = await requests.get();
      this.reset();
      for (const { metricName, labels, value } of values) {
        if (metricName === `${REQUEST_DURATION}_count`) this.inc(labels, value);
      }
    },
  });
  const requests = new Histogram({
    name: REQUEST_DURATION,
    help: 'Time from taking a request to closing its response, by operation and status.',
    labelNames: ['operation', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
  });
  new Gauge({
    name: 'workforce_kit_http_requests_in_flight',
    help: 'Requests the API has taken and not answered yet.',
    registers,
    collect() {
      this.set(inFlight.value);
    },
  });
  const rateLimitRefusals = new Counter({
    name: 'workforce_kit_rate_limit_refusals_total',
    help: 'Requests refused with 429, by the rate-limit window that refused them.',
    labelNames: ['window'] as const,
    registers,
    collect() {
      listWindows(this);
    },
  });
  listWindows(rateLimitRefusals);
  const storeCalls = new Histogram({
    name: 'workforce_kit_store_call_duration_seconds',
    help: "Duration of the store's port calls, by call (employees.find, shifts.write, …).",
    labelNames: ['call'] as const,
    buckets: STORE_BUCKETS,
    registers,
  });
  const metrics: HttpMetrics = { requests, inFlight, rateLimitRefusals, storeCalls };
  ofRegistry.set(registry, { metrics, requestsTotal });
  return metrics;
}
