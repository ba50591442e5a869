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

/** The per-request metrics of one operation label, made once (and their children by status). */
class OperationSeries {
  readonly #byStatus = new Map<
    string,
    { count: Counter.Internal; seconds: Histogram.Internal<'operation' | 'status'> }
  >();

  constructor(
    private readonly metrics: HttpMetrics,
    private readonly operation: string,
    statuses: Iterable<number>,
  ) {
    for (const status of statuses) this.of(String(status));
  }

  of(status: string): {
    count: Counter.Internal;
    seconds: Histogram.Internal<'operation' | 'status'>;
  } {
    let series = this.#byStatus.get(status);
    if (series === undefined) {
      series = {
        count: this.metrics.requests.labels(this.operation, status),
        seconds: this.metrics.duration.labels(this.operation, status),
      };
      this.#byStatus.set(status, series);
    }
    return series;
  }
}

/** The metrics the API keeps, registered once in the host's registry. */
export interface HttpMetrics {
  readonly requests: Counter<'operation' | 'status'>;
  readonly duration: Histogram<'operation' | 'status'>;
  readonly inFlight: Gauge;
  readonly rateLimitRefusals: Counter<'window'>;
  readonly storeCalls: Histogram<'call'>;
}

/** The registry's metric of this name if there is one (another API registered it), else a new one. */
function registered<T>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

/** Registers the API's metrics in `registry` (or takes those another API registered there). */
export function httpMetrics(registry: Registry): HttpMetrics {
  const registers = [registry];
  return {
    requests: registered(
      registry,
      'workforce_kit_http_requests_total',
      () =>
        new Counter({
          name: 'workforce_kit_http_requests_total',
          help: 'Requests the API answered, by operation (none: its 404 and 405) and status.',
          labelNames: ['operation', 'status'] as const,
          registers,
        }),
    ),
    duration: registered(
      registry,
      'workforce_kit_http_request_duration_seconds',
      () =>
        new Histogram({
          name: 'workforce_kit_http_request_duration_seconds',
          help: 'Time from taking a request to closing its response, by operation and status.',
          labelNames: ['operation', 'status'] as const,
          buckets: REQUEST_BUCKETS,
          registers,
        }),
    ),
    inFlight: registered(
      registry,
      'workforce_kit_http_requests_in_flight',
      () =>
        new Gauge({
          name: 'workforce_kit_http_requests_in_flight',
          help: 'Requests the API has taken and not answered yet.',
          registers,
        }),
    ),
    rateLimitRefusals: registered(
      registry,
      'workforce_kit_rate_limit_refusals_total',
      () =>
        new Counter({
          name: 'workforce_kit_rate_limit_refusals_total',
          help: 'Requests refused with 429, by the rate-limit window that refused them.',
          labelNames: ['window'] as const,
          registers,
        }),
    ),
    storeCalls: registered(
      registry,
      'workforce_kit_store_call_duration_seconds',
      () =>
        new Histogram({
          name: 'workforce_kit_store_call_duration_seconds',
          help: "Duration of the store's port calls, by call (employees.find, shifts.write, …).",
          labelNames: ['call'] as const,
          buckets: STORE_BUCKETS,
          registers,
        }),
    ),
  };
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
    metrics?.inFlight.inc();
  }

  within<T>(work: () => T): T {
    return this.active === undefined ? work() : context.with(this.active, work);
  }

  end(response: AnsweredResponse): void {
    if (this.#ended) return;
    this.#ended = true;
    const status = response.writableFinished ? String(response.statusCode) : 'aborted';
    if (this.metrics !== undefined && this.series !== undefined) {
      const series = this.series.of(status);
      series.count.inc();
      series.seconds.observe((performance.now() - this.#started) / 1000);
      this.metrics.inFlight.dec();
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
        metrics && new OperationSeries(metrics, label, operation?.responses.keys() ?? [404, 405]),
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
