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
import type { Histogram } from 'prom-client';
import type { HttpMetrics } from './http-metrics.js';
import type { ApiOperation } from './operations.js';

/** The label of a request that names no operation (the API's 404 and 405). */
const NO_OPERATION_LABEL = 'none';

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
 * One request as the API observes it: its span (with tracing) and its count in the metrics. The
 * pipeline starts it when it takes the request, and ends it, once, with how long the request took,
 * when the adapter reports the response closed (`ApiAnswer.closed`).
 *
 * @example
 * ```ts
 * const result = await telemetry.within(() => runUseCase()); // the store's spans nest under it
 * telemetry.end(res, performance.now() - started);
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
   * Records the request's end: its status, duration, span. Called once per request.
   *
   * @param elapsedMs - from taking the request to its response's close
   */
  end(response: AnsweredResponse, elapsedMs: number): void;
}

/**
 * The bookkeeping of requests that `createApi` makes once, when metrics or tracing are asked
 * for: the pipeline starts a {@link RequestTelemetry} for each request it takes, writes the
 * request's log lines with its `logBindings`, runs the use case within its span, and ends it
 * when the adapter reports the response closed.
 *
 * @example
 * ```ts
 * const telemetry = createTelemetry(operations, metrics, tracing);
 * const started = performance.now();
 * const observed = telemetry.start(operation, req.method, req.headers, requestId);
 * const result = observed.within(() => run(operation.id, inputs));
 * res.once('close', () => observed.end(res, performance.now() - started));
 * ```
 */
export interface Telemetry {
  /**
   * Starts observing a request: its SERVER span (a child of the `traceparent` it carries) and
   * its count of requests in flight.
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

/** A child of the request histogram: one operation and status's series, its labels bound. */
type RequestSeries = Histogram.Internal<'operation' | 'status'>;

/**
 * The requests of one operation label as the metrics count them: in flight from their start, then
 * observed in the series of their status (its documented statuses' and `aborted` bound at
 * start-up; another status's bound the first time it is answered). It holds nothing of one
 * request's own (the request's state keeps its start), so that one serves all of them.
 */
class OperationMetrics implements RequestTelemetry {
  readonly logBindings = undefined;
  readonly #byStatus = new Map<number, RequestSeries>();
  readonly #aborted: RequestSeries;

  constructor(
    private readonly metrics: HttpMetrics,
    private readonly operation: string,
    statuses: Iterable<number>,
  ) {
    for (const status of statuses) this.#of(status);
    this.#aborted = metrics.requests.labels(operation, 'aborted');
  }

  /** Counts a request in flight: the object to end it with. */
  start(): this {
    this.metrics.inFlight.value += 1;
    return this;
  }

  within<T>(work: () => T): T {
    return work();
  }

  end(response: AnsweredResponse, elapsedMs: number): void {
    const series = response.writableFinished ? this.#of(response.statusCode) : this.#aborted;
    series.observe(elapsedMs / 1000);
    this.metrics.inFlight.value -= 1;
  }

  #of(status: number): RequestSeries {
    let series = this.#byStatus.get(status);
    if (series === undefined) {
      series = this.metrics.requests.labels(this.operation, String(status));
      this.#byStatus.set(status, series);
    }
    return series;
  }
}

/** What a request's telemetry needs of its operation, made once per operation. */
interface OperationTelemetry {
  readonly metrics: OperationMetrics | undefined;
  /** `GET /labor/v1/…` (`{method} {http.route}`), for the span of a request of this method. */
  readonly spanName: string;
  readonly method: string;
  readonly attributes: Readonly<Record<string, string>>;
}

/** A request with its span: its operation's metrics, if kept, and the span, ended with it. */
class TracedRequest implements RequestTelemetry {
  constructor(
    private readonly metrics: OperationMetrics | undefined,
    private readonly span: Span,
    private readonly active: Context,
    readonly logBindings: Readonly<Record<string, string>> | undefined,
  ) {}

  within<T>(work: () => T): T {
    return context.with(this.active, work);
  }

  end(response: AnsweredResponse, elapsedMs: number): void {
    this.metrics?.end(response, elapsedMs);
    const { span } = this;
    if (response.writableFinished) {
      span.setAttribute('http.response.status_code', response.statusCode);
      if (response.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    } else {
      span.setAttribute('workforce_kit.aborted', true);
    }
    span.end();
  }
}

/** The telemetry of a request when neither metrics nor spans are kept: it records nothing. */
const UNOBSERVED: RequestTelemetry = {
  logBindings: undefined,
  within: (work) => work(),
  end: () => undefined,
};

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
      metrics:
        metrics && new OperationMetrics(metrics, label, operation?.responses.keys() ?? [404, 405]),
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
      const measured = known.metrics?.start();
      // Without spans, a request's telemetry is its operation's metrics: nothing made per request.
      if (tracer === undefined) return measured ?? UNOBSERVED;
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
      return new TracedRequest(measured, span, trace.setSpan(parent, span), bindings);
    },
  };
}
