import type { Metric, Registry } from 'prom-client';

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

/** Buckets of a request's duration, in seconds: from half a millisecond to the request timeout. */
const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** Buckets of a store call's duration, in seconds: from 50 µs (in memory) to seconds. */
const STORE_BUCKETS = [
  0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
];

/** One value of a metric as prom-client's registry prints it (`metricName` for a histogram's). */
interface ScrapedValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly metricName?: string;
}

/**
 * One series of a histogram, counted in plain numbers: each bucket's count (not cumulative), the
 * sum and the count. It is printed from its first observation (or its {@link CountedHistogram.zero}).
 */
export class HistogramSeries {
  readonly #bounds: readonly number[];
  readonly #buckets: Float64Array;
  sum = 0;
  count = 0;
  #listed = false;

  constructor(
    private readonly histogram: CountedHistogram<string>,
    /** The labels, in the order of the metric's label names (the order they are printed in). */
    readonly labels: Readonly<Record<string, string>>,
  ) {
    this.#bounds = histogram.bounds;
    this.#buckets = new Float64Array(histogram.bounds.length);
  }

  /** Counts `value` (a finite number) in the first bucket whose bound it does not exceed. */
  observe(value: number): void {
    this.list();
    const bounds = this.#bounds;
    let bucket = 0;
    while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket++;
    if (bucket < bounds.length) this.#buckets[bucket] = (this.#buckets[bucket] as number) + 1;
    this.sum += value;
    this.count += 1;
  }

  /** Makes it printed from now on, at 0 until it is observed. */
  list(): void {
    if (this.#listed) return;
    this.#listed = true;
    this.histogram.listed.push(this);
  }

  /** Its values as a histogram prints them: the cumulative buckets, then `+Inf`, sum and count. */
  scraped(name: string): ScrapedValue[] {
    const bucket = `${name}_bucket`;
    let below = 0;
    const values: ScrapedValue[] = this.#bounds.map((le, i) => {
      below += this.#buckets[i] as number;
      return { value: below, labels: { le, ...this.labels }, metricName: bucket };
    });
    values.push(
      { value: this.count, labels: { le: '+Inf', ...this.labels }, metricName: bucket },
      { value: this.sum, labels: this.labels, metricName: `${name}_sum` },
      { value: this.count, labels: this.labels, metricName: `${name}_count` },
    );
    return values;
  }

  reset(): void {
    this.#buckets.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}

/** One series of a counter, counted in a plain number; printed from its first `inc`. */
export class CounterSeries {
  value = 0;
  #listed = false;

  constructor(
    private readonly counter: CountedCounter<string>,
    readonly labels: Readonly<Record<string, string>>,
  ) {}

  /** Adds `by` (1 if not given; 0 makes the series printed at 0). */
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

/** A metric's series by their label values (in the label names' order), each made on first use. */
abstract class SeriesByLabels<L extends string, S> {
  readonly #byValues = new Map<string, S>();

  constructor(readonly labelNames: readonly L[]) {}

  /** The series of these label values (in the label names' order), made on first use. */
  labels(...values: string[]): S {
    const id = values.join('\u0000');
    let series = this.#byValues.get(id);
    if (series === undefined) {
      series = this.made(labelsOf(this.labelNames, values));
      this.#byValues.set(id, series);
    }
    return series;
  }

  protected abstract made(labels: Readonly<Record<string, string>>): S;
}

/**
 * A histogram counted in plain numbers, per series. Its series are made once (`labels(...)`, at
 * start-up) and an observation is a bucket's search and three additions: no label hashing, no
 * allocation.
 */
export class CountedHistogram<L extends string> extends SeriesByLabels<L, HistogramSeries> {
  /** The series observed (or zeroed), in the order they were first: the order they print in. */
  readonly listed: HistogramSeries[] = [];

  constructor(
    labelNames: readonly L[],
    readonly bounds: readonly number[],
  ) {
    super(labelNames);
  }

  /** Makes the series of `labels` printed at 0 before its first observation. */
  zero(labels: Readonly<Record<L, string>>): void {
    this.labels(...this.labelNames.map((name) => labels[name])).list();
  }

  protected made(labels: Readonly<Record<string, string>>): HistogramSeries {
    return new HistogramSeries(this, labels);
  }
}

/** A counter counted in plain numbers, per series. */
export class CountedCounter<L extends string> extends SeriesByLabels<L, CounterSeries> {
  readonly listed: CounterSeries[] = [];

  protected made(labels: Readonly<Record<string, string>>): CounterSeries {
    return new CounterSeries(this, labels);
  }
}

/**
 * One of the API's metrics as prom-client's registry takes a metric (`registerMetric`): a name, a
 * help text, a type, and `get()`, which the registry calls when it is scraped (`metrics()`,
 * `getMetricsAsJSON()`) and which reads the plain numbers the API counts.
 */
class ScrapedMetric {
  readonly aggregator = 'sum';

  constructor(
    /** prom-client's registry may rename it (an OpenMetrics counter's name loses `_total`). */
    public name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge' | 'histogram',
    private readonly read: (name: string) => ScrapedValue[],
    private readonly zero: () => void,
  ) {}

  async get() {
    const { name, help, type, aggregator } = this;
    return { name, help, type, aggregator, values: this.read(name) };
  }

  /** Sets its counts to 0 (`registry.resetMetrics()`). */
  reset(): void {
    this.zero();
  }
}

/**
 * The metrics the API keeps, in plain numbers, updated per request; the registry reads them when
 * it is scraped. Made once per registry: two APIs given the same registry count into the same
 * numbers (their counts add up).
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

/** The API's metrics of each registry, and the request counter registered there. */
const ofRegistry = new WeakMap<Registry, { metrics: HttpMetrics; registered: ScrapedMetric }>();

const histogramOf = (histogram: CountedHistogram<string>) => (name: string) =>
  histogram.listed.flatMap((series) => series.scraped(name));

const resetHistogram = (histogram: CountedHistogram<string>) => () => {
  for (const series of histogram.listed) series.reset();
};

/**
 * Registers the API's metrics in `registry`, or gives those an earlier API registered there. A
 * registry that holds a metric of the same name made elsewhere throws (prom-client's error).
 */
export function httpMetrics(registry: Registry): HttpMetrics {
  const known = ofRegistry.get(registry);
  if (
    known !== undefined &&
    Object.is(registry.getSingleMetric(REQUESTS_TOTAL), known.registered)
  ) {
    return known.metrics;
  }
  const metrics: HttpMetrics = {
    requests: new CountedHistogram(['operation', 'status'], REQUEST_BUCKETS),
    inFlight: { value: 0 },
    rateLimitRefusals: new CountedCounter(['window']),
    storeCalls: new CountedHistogram(['call'], STORE_BUCKETS),
  };
  const { requests, rateLimitRefusals, storeCalls } = metrics;
  const registered = new ScrapedMetric(
    REQUESTS_TOTAL,
    'Requests the API answered, by operation (none: its 404 and 405) and status.',
    'counter',
    () => requests.listed.map(({ count, labels }) => ({ value: count, labels })),
    resetHistogram(requests),
  );
  const scraped = [
    registered,
    new ScrapedMetric(
      'workforce_kit_http_request_duration_seconds',
      'Time from taking a request to closing its response, by operation and status.',
      'histogram',
      histogramOf(requests),
      resetHistogram(requests),
    ),
    new ScrapedMetric(
      'workforce_kit_http_requests_in_flight',
      'Requests the API has taken and not answered yet.',
      'gauge',
      () => [{ value: metrics.inFlight.value, labels: {} }],
      // A reading of requests under way, not a count: nothing to reset.
      () => undefined,
    ),
    new ScrapedMetric(
      'workforce_kit_rate_limit_refusals_total',
      'Requests refused with 429, by the rate-limit window that refused them.',
      'counter',
      () => rateLimitRefusals.listed.map(({ value, labels }) => ({ value, labels })),
      () => {
        for (const series of rateLimitRefusals.listed) series.value = 0;
      },
    ),
    new ScrapedMetric(
      'workforce_kit_store_call_duration_seconds',
      "Duration of the store's port calls, by call (employees.find, shifts.write, …).",
      'histogram',
      histogramOf(storeCalls),
      resetHistogram(storeCalls),
    ),
  ];
  // prom-client's types list its own metric classes; its registry takes any object with a name,
  // help, type and get(), and calls reset() on resetMetrics().
  for (const metric of scraped) registry.registerMetric(metric as unknown as Metric);
  ofRegistry.set(registry, { metrics, registered });
  return metrics;
}
