import {
  type Context,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ApiOperation } from './operations.js';

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

/** The name of the request counter (the one metric looked up by name). */
const REQUESTS_TOTAL = 'workforce_kit_http_requests_total';

/** The label of a request that names no operation (the API's 404 and 405). */
const NO_OPERATION_LABEL = 'none';

/** Buckets of a request's duration, in seconds: from half a millisecond to the request timeout. */
const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Buckets of a store call's duration, in seconds: from 50 µs (in memory) to seconds. */
const STORE_BUCKETS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

/**
 * What the response of a request tells at its end: Node's `ServerResponse` fits.
 *
 * @example
 * ```ts
 * res.once('close', () => telemetry.end(res)); // Express's res; Fastify's reply.raw
 * ```
 */
export interface AnsweredResponse {
  readonly statusCode: number;
  /** Whether the answer was sent in full (false when the client closed the connection first). */
  readonly writableFinished: boolean;
}

/**
 * One request as the API observes it: its span (with tracing) and its clock (with metrics).
 * Adapters get it from {@link Telemetry.start} when they take a request, and end it when the
 * response closes.
 *
 * @example
 * ```ts
 * const result = await telemetry.within(() => runUseCase()); // the store's spans nest under it
 * telemetry.end(res);
 * ```
 */
export interface RequestTelemetry {
  /**
   * What every log line of the request carries besides its request id: `traceId` and `spanId`
   * while its span records; none otherwise.
   */
  readonly logBindings: Readonly<Record<string, string>> | undefined;
  /** Runs `work` with the request's span as the active one: the store's spans are its children. */
  within<T>(work: () => T): T;
  /**
   * Records the request's end: its status, duration, span. Only the first call counts (an
   * adapter may see both a finish and a close).
   */
  end(response: AnsweredResponse): void;
}

/**
 * The bookkeeping of requests that `createApi` makes once, when metrics or tracing are asked
 * for: an adapter calls {@link Telemetry.start} when it takes a request, logs with the
 * request's `logBindings`, passes it to `api.run` (whose use case then runs within its span), and
 * ends it when the response closes.
 *
 * @example
 * ```ts
 * const telemetry = api.telemetry?.start(operation, req.method, req.headers, requestId);
 * if (telemetry !== undefined) res.once('close', () => telemetry.end(res));
 * const log = new RequestLogger(api.logger, requestId, telemetry?.logBindings);
 * const result = await api.run(operation.id, { restaurant, path, query, requestId, telemetry });
 * ```
 */
export interface Telemetry {
  /**
   * Starts observing a request: its SERVER span (a child of the `traceparent` it carries) and
   * its clock.
   *
   * @param operation - the request's operation, or `undefined` for the API's 404 and 405
   */
  start(
    operation: ApiOperation | undefined,
    method: string,
    headers: Readonly<Record<string, string | string[] | undefined>>,
    requestId: string,
  ): RequestTelemetry;
}

/**
 * One series of a histogram, counted in plain numbers: each bucket's count (not cumulative, as
 * prom-client keeps them), the sum and the count. It appears in the metric's output from its first
 * observation (or its {@link CountedHistogram.zero}), in that order, as prom-client's series do.
 */
class HistogramSeries {
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;
  #listed = false;

  constructor(
    private readonly histogram: CountedHistogram<string>,
    /** The labels, in the order of the metric's label names (the order prom-client prints them). */
    readonly labels: Readonly<Record<string, string>>,
    /** prom-client's key of these labels in its series (`call:employees.find,`). */
    readonly key: string,
  ) {
    this.buckets = new Float64Array(histogram.bounds.length);
  }

  /** Counts `value` (a finite number) in the first bucket whose bound it does not exceed. */
  observe(value: number): void {
    if (!this.#listed) this.list();
    const { bounds } = this.histogram;
    let bucket = 0;
    while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket++;
    if (bucket < bounds.length) this.buckets[bucket] = (this.buckets[bucket] as number) + 1;
    this.sum += value;
    this.count += 1;
  }

  list(): void {
    if (this.#listed) return;
    this.#listed = true;
    this.histogram.listed.push(this);
  }
}

/** One series of a counter, counted in a plain number; listed from its first `inc`. */
class CounterSeries {
  value = 0;
  #listed = false;

  constructor(
    private readonly counter: CountedCounter<string>,
    readonly labels: Readonly<Record<string, string>>,
  ) {}

  /** Adds `by` (1 if not given; 0 makes the series appear at 0). */
  inc(by = 1): void {
    if (!this.#listed) {
      this.#listed = true;
      this.counter.listed.push(this);
    }
    this.value += by;
  }
}

/** The labels of `values`, keyed by `names` in their order (prom-client's `labels(...)`). */
function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  if (values.length !== names.length) {
    throw new Error(`${names.length} label values expected (${names.join(', ')})`);
  }
  return Object.fromEntries(names.map((name, i) => [name, values[i] as string]));
}

/** prom-client's key of a series: `name:value,` for each label, by label name (`hashObject`). */
function seriesKey(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .sort()
    .map((name) => `${name}:${labels[name]},`)
    .join('');
}

/**
 * A histogram counted in plain numbers, per series, and read by prom-client when the registry is
 * scraped (see {@link httpMetrics}). Its series are made once (`labels(...)`, at start-up) and each
 * observation is a bucket's search and three additions: no label hashing, no allocation.
 */
class CountedHistogram<L extends string> {
  /** The series observed (or zeroed), in the order they were first: the order of the output. */
  readonly listed: HistogramSeries[] = [];
  readonly #byValues = new Map<string, HistogramSeries>();

  constructor(
    readonly labelNames: readonly L[],
    readonly bounds: readonly number[],
  ) {}

  /** The series of these label values (in the label names' order), made on first use. */
  labels(...values: string[]): HistogramSeries {
    const id = values.join('\u0000');
    let series = this.#byValues.get(id);
    if (series === undefined) {
      const labels = labelsOf(this.labelNames, values);
      series = new HistogramSeries(this, labels, seriesKey(labels));
      this.#byValues.set(id, series);
    }
    return series;
  }

  /** Makes the series of `labels` appear in the output at 0 before its first observation. */
  zero(labels: Readonly<Record<L, string>>): void {
    this.labels(...this.labelNames.map((name) => labels[name])).list();
  }
}

/** A counter counted in plain numbers, per series, read by prom-client at scrape time. */
class CountedCounter<L extends string> {
  readonly listed: CounterSeries[] = [];
  readonly #byValues = new Map<string, CounterSeries>();

  constructor(readonly labelNames: readonly L[]) {}

  /** The series of these label values (in the label names' order), made on first use. */
  labels(...values: string[]): CounterSeries {
    const id = values.join('\u0000');
    let series = this.#byValues.get(id);
    if (series === undefined) {
      series = new CounterSeries(this, labelsOf(this.labelNames, values));
      this.#byValues.set(id, series);
    }
    return series;
  }
}

/** What prom-client keeps of a histogram's series (`Histogram#hashMap`'s values). */
interface PromHistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly bucketValues: Record<number, number>;
  readonly sum: number;
  readonly count: number;
}

/**
 * Puts the counts of `counted` into prom-client's `histogram`, for the registry to print. prom-client
 * has no public method to set a histogram's buckets, so its series (`hashMap`, which its own
 * export reads) are written as its `observe` would have left them; the test comparing this output
 * with prom-client's own observations (telemetry-metrics.test.ts) holds it to that.
 */
function readInto(histogram: Histogram<string>, counted: CountedHistogram<string>): void {
  const series: Record<string, PromHistogramSeries> = {};
  for (const one of counted.listed) {
    const bucketValues: Record<number, number> = {};
    counted.bounds.forEach((bound, i) => {
      bucketValues[bound] = one.buckets[i] as number;
    });
    series[one.key] = { labels: one.labels, bucketValues, sum: one.sum, count: one.count };
  }
  (histogram as unknown as { hashMap: Record<string, PromHistogramSeries> }).hashMap = series;
}

/**
 * The metrics the API keeps, in plain numbers, updated per request; prom-client reads them when
 * the registry is scraped (each metric's `collect`), so `/metrics` prints what prom-client's own
 * counters would have. Made once per registry: two APIs given the same registry count into the
 * same numbers (their counts add up).
 */
export interface HttpMetrics {
  /**
   * Requests answered, by operation and status: one series for both their count
   * (`workforce_kit_http_requests_total`) and their durations in seconds
   * (`workforce_kit_http_request_duration_seconds`).
   */
  readonly requests: CountedHistogram<'operation' | 'status'>;
  /** Requests taken and not answered yet (`workforce_kit_http_requests_in_flight`). */
  readonly inFlight: { value: number };
  /** 429s by the window that refused (`workforce_kit_rate_limit_refusals_total`). */
  readonly rateLimitRefusals: CountedCounter<'window'>;
  /** The store's port calls' durations (`workforce_kit_store_call_duration_seconds`). */
  readonly storeCalls: CountedHistogram<'call'>;
}

/** The API's metrics of each registry, and prom-client's request counter registered there. */
const ofRegistry = new WeakMap<Registry, { metrics: HttpMetrics; registered: Counter<string> }>();

/**
 * Registers the API's metrics in `registry`, or gives those an earlier API registered there. A
 * registry that holds a metric of the same name made elsewhere throws (prom-client's error).
 */
export function httpMetrics(registry: Registry): HttpMetrics {
  const known = ofRegistry.get(registry);
  if (known !== undefined && registry.getSingleMetric(REQUESTS_TOTAL) === known.registered) {
    return known.metrics;
  }
  const metrics: HttpMetrics = {
    requests: new CountedHistogram(['operation', 'status'], REQUEST_BUCKETS),
    inFlight: { value: 0 },
    rateLimitRefusals: new CountedCounter(['window']),
    storeCalls: new CountedHistogram(['call'], STORE_BUCKETS),
  };
  const registers = [registry];
  const registered = new Counter({
    name: REQUESTS_TOTAL,
    help: 'Requests the API answered, by operation (none: its 404 and 405) and status.',
    labelNames: ['operation', 'status'] as const,
    registers,
    collect() {
      this.reset();
      for (const series of metrics.requests.listed) this.inc(series.labels, series.count);
    },
  });
  new Histogram({
    name: 'workforce_kit_http_request_duration_seconds',
    help: 'Time from taking a request to closing its response, by operation and status.',
    labelNames: ['operation', 'status'] as const,
    buckets: REQUEST_BUCKETS,
    registers,
    collect() {
      readInto(this, metrics.requests);
    },
  });
  new Gauge({
    name: 'workforce_kit_http_requests_in_flight',
    help: 'Requests the API has taken and not answered yet.',
    registers,
    collect() {
      this.set(metrics.inFlight.value);
    },
  });
  new Counter({
    name: 'workforce_kit_rate_limit_refusals_total',
    help: 'Requests refused with 429, by the rate-limit window that refused them.',
    labelNames: ['window'] as const,
    registers,
    collect() {
      this.reset();
      for (const series of metrics.rateLimitRefusals.listed) this.inc(series.labels, series.value);
    },
  });
  new Histogram({
    name: 'workforce_kit_store_call_duration_seconds',
    help: "Duration of the store's port calls, by call (employees.find, shifts.write, …).",
    labelNames: ['call'] as const,
    buckets: STORE_BUCKETS,
    registers,
    collect() {
      readInto(this, metrics.storeCalls);
    },
  });
  ofRegistry.set(registry, { metrics, registered });
  return metrics;
}

/**
 * The request series of one operation label, by status: those of its documented statuses (and
 * `aborted`) made at start-up; another status's made the first time it is answered.
 */
class OperationSeries {
  readonly #byStatus = new Map<number, HistogramSeries>();
  readonly aborted: HistogramSeries;

  constructor(
    private readonly requests: CountedHistogram<'operation' | 'status'>,
    private readonly operation: string,
    statuses: Iterable<number>,
  ) {
    for (const status of statuses) this.of(status);
    this.aborted = requests.labels(operation, 'aborted');
  }

  of(status: number): HistogramSeries {
    let series = this.#byStatus.get(status);
    if (series === undefined) {
      series = this.requests.labels(this.operation, String(status));
      this.#byStatus.set(status, series);
    }
    return series;
  }
}

/** What a request's telemetry needs of its operation, made once per operation. */
interface OperationTelemetry {
  readonly series: OperationSeries | undefined;
  /** `GET /labor/v1/…` (`{method} {http.route}`), for the span of a request of this method. */
  readonly spanName: string;
  readonly method: string;
  readonly attributes: Readonly<Record<string, string>>;
}

class ObservedRequest implements RequestTelemetry {
  readonly #started = performance.now();
  #ended = false;

  constructor(
    private readonly metrics: HttpMetrics | undefined,
    private readonly series: OperationSeries | undefined,
    private readonly span: Span | undefined,
    private readonly active: Context | undefined,
    readonly logBindings: Readonly<Record<string, string>> | undefined,
  ) {
    if (metrics !== undefined) metrics.inFlight.value += 1;
  }

  within<T>(work: () => T): T {
    return this.active === undefined ? work() : context.with(this.active, work);
  }

  end(response: AnsweredResponse): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.metrics !== undefined && this.series !== undefined) {
      const series = response.writableFinished
        ? this.series.of(response.statusCode)
        : this.series.aborted;
      series.observe((performance.now() - this.#started) / 1000);
      this.metrics.inFlight.value -= 1;
    }
    const { span } = this;
    if (span === undefined) return;
    if (response.writableFinished) {
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      span.setAttribute('workforce_kit.aborted', true);
    }
    span.end();
  }
}

/** The tracer of the API's spans: the registered SDK's, or the API's no-op until one is. */
export const tracerOf = (): Tracer => trace.getTracer('@workforce-kit/http');

/**
 * Makes the request bookkeeping of the metrics and tracing asked for, with each operation's
 * metric children, span name and attributes precomputed.
 */
export function createTelemetry(
  operations: readonly ApiOperation[],
  metrics: HttpMetrics | undefined,
  tracing: boolean,
): Telemetry {
  const tracer = tracing ? tracerOf() : undefined;
  const byOperation = new Map<ApiOperation | undefined, OperationTelemetry>();
  for (const operation of [...operations, undefined]) {
    const label = operation?.id ?? NO_OPERATION_LABEL;
    byOperation.set(operation, {
      series:
        metrics &&
        new OperationSeries(metrics.requests, label, operation?.responses.keys() ?? [404, 405]),
      spanName: operation === undefined ? '' : `${operation.method} ${operation.path}`,
      method: operation?.method ?? '',
      attributes:
        operation === undefined
          ? { 'workforce_kit.operation': label }
          : { 'http.route': operation.path, 'workforce_kit.operation': label },
    });
  }
  const none = byOperation.get(undefined) as OperationTelemetry;

  return {
    start(operation, method, headers, requestId) {
      const known = byOperation.get(operation) ?? none;
      if (tracer === undefined) {
        return new ObservedRequest(metrics, known.series, undefined, undefined, undefined);
      }
      const parent = propagation.extract(ROOT_CONTEXT, headers);
      const span = tracer.startSpan(
        method === known.method
          ? known.spanName
          : `${method}${operation ? ` ${operation.path}` : ''}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            ...known.attributes,
            'http.request.method': method,
            'workforce_kit.request_id': requestId,
          },
        },
        parent,
      );
      const bindings = span.isRecording()
        ? { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId }
        : undefined;
      return new ObservedRequest(
        metrics,
        known.series,
        span,
        trace.setSpan(parent, span),
        bindings,
      );
    },
  };
}
