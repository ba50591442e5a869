import { ProxyTracerProvider, trace } from '@opentelemetry/api';
import {
  type Clock,
  type IdSource,
  isThenable,
  type RateLimitWindow,
  type RecordedEvent,
  type WorkforceStore,
} from '@workforce-kit/core';
import { openapiDocument } from '@workforce-kit/types';
import { pino } from 'pino';
import type { AccessTokenVerifier } from './auth/access-token.js';
import { type HttpMetrics, httpMetrics, type MetricsOptions } from './http-metrics.js';
import { instrumentedStore } from './instrumented-store.js';
import type { Logger, LogSource } from './logger.js';
import { createOperationRunner, withinRequestSpans } from './operation-runner.js';
import { type ApiOperation, pathsOf, prefixesOf, readOperations } from './operations.js';
import { createPipeline, type Pipeline } from './pipeline.js';
import { createRateLimiter, type RateLimitOptions } from './rate-limit.js';
import { newUuid } from './request-id.js';
import { compileRequestValidators } from './request-validation.js';
import { compileResponseValidator } from './response-validation.js';
import { routeTable } from './route-table.js';
import { createTelemetry, tracerOf } from './telemetry.js';

/** The ports the edge reads and writes through: any store that implements the core's ports. */
export type ApiStore = Pick<WorkforceStore, 'employees' | 'shifts' | 'restaurants'>;

/** Options of the API, the same for every framework adapter. */
export interface ApiOptions {
  /** The store: the core's repositories. */
  readonly store: ApiStore;
  /** Verifies bearer tokens: `createJwtVerifier(...)`, or your own {@link AccessTokenVerifier}. */
  readonly auth: AccessTokenVerifier;
  /** Validate every response against the spec (a 500 when one does not match). @default false */
  readonly validateResponses?: boolean;
  /** Rate limits, or `false` for none. @default { perSecond: 20, per15Minutes: 10000 } */
  readonly rateLimit?: RateLimitOptions | false;
  /** Largest request body, in bytes (inflated, for a compressed one). @default 16384 */
  readonly bodyLimitBytes?: number;
  /** A request not answered in this time gets 503 `REQUEST_TIMEOUT`. @default 10000 */
  readonly requestTimeoutMs?: number;
  /**
   * Called with each event after its change is committed (not awaited; a failure is logged).
   * @default none
   */
  readonly onEvent?: (event: RecordedEvent) => void | Promise<void>;
  /** Where the edge logs; every line of a request carries its `requestId`. @default pino at level 'warn' */
  readonly logger?: Logger;
  /** The time source of state changes. @default the system clock */
  readonly clock?: Clock;
  /** The source of event ids. @default random version 4 UUIDs, as `crypto.randomUUID` makes */
  readonly ids?: IdSource;
  /** Attempts of a use case on a contended record before 503 `WRITE_CONTENTION`. @default 8 */
  readonly maxAttempts?: number;
  /**
   * Prometheus metrics of requests, rate-limit refusals and store calls, kept in the registry
   * given (see {@link MetricsOptions}). Without it, nothing is counted (and nothing costs).
   * @default none
   */
  readonly metrics?: MetricsOptions;
  /**
   * OpenTelemetry spans through `@opentelemetry/api`: a SERVER span per request (a child of the
   * `traceparent` it carries, named `GET /labor/v1/…`) with `http.request.method`, `http.route`,
   * `http.response.status_code`, `workforce_kit.operation` and `workforce_kit.request_id`, an
   * error on a 5xx; an INTERNAL span per store call under it (`employees.find`, …); the request's
   * log lines carry its `traceId`. The spans go to the SDK the host registers (the SDK's context
   * manager makes the store's spans children).
   *
   * Unset, tracing is on when an OpenTelemetry SDK is registered as the API is created (register
   * it before `createRouter` or `register(workforceKit)`), and off otherwise: then no span is made
   * and nothing is wrapped, so a request pays nothing for it. `true` or `false` decides outright
   * (`true` with no SDK registered makes spans that go nowhere until one is).
   * @default whether an OpenTelemetry SDK is registered when the API is created
   */
  readonly tracing?: boolean;
  /**
   * Headers every answer of the API carries besides its own: the host's security headers, say
   * (helmet's, made once). They go out in the answer's one write, which costs less than a
   * middleware setting them on every response before the API answers. A header the API sets
   * itself (`Content-Type`, `Cache-Control`, `X-Content-Type-Options`, `X-Request-Id`,
   * `RateLimit-*`, `Retry-After`, `WWW-Authenticate`, `Allow`, …), in any letter case, is the
   * API's and is not taken from here.
   * @default none
   * @example
   * ```ts
   * createRouter({ store, auth, responseHeaders: { 'Strict-Transport-Security': 'max-age=31536000' } });
   * ```
   */
  readonly responseHeaders?: Readonly<Record<string, string>>;
}

/** The defaults of {@link ApiOptions}: what an option left out means. */
export const API_DEFAULTS = {
  validateResponses: false,
  bodyLimitBytes: 16 * 1024,
  requestTimeoutMs: 10_000,
  logLevel: 'warn',
} as const;

/**
 * The API made once from the options and the spec: its request pipeline ({@link Pipeline}), which
 * every adapter calls, and what the spec's operation table says.
 */
export interface Api {
  /** The answer to a request, or `undefined` for a path outside the API (the host's). */
  readonly handle: Pipeline;
  readonly operations: readonly ApiOperation[];
  /** The prefixes the API owns (`/labor/v1`, …): an unknown path under one is its 404. */
  readonly prefixes: readonly string[];
  /** Where the API logs. */
  readonly logger: Logger;
}

/** The tracer provider of a global proxy no SDK was given to (OpenTelemetry's no-op). */
const NO_SDK = new ProxyTracerProvider().getDelegate();

/**
 * Whether an OpenTelemetry SDK is registered: the global tracer provider (a proxy) delegates to
 * another provider than the no-op. A global registered by another copy of `@opentelemetry/api`
 * means an SDK registered it.
 */
function tracingSdkRegistered(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NO_SDK;
}

/**
 * Makes the API of the options: reads the operations from the spec, compiles its request (and,
 * for tests, response) schemas, sets up the rate limits, and binds the use cases to the store;
 * with `metrics` or `tracing`, registers the metrics, precomputes each operation's labels and span
 * name, and wraps the store's ports to measure them. All of it once, at start-up; nothing here is
 * done per request.
 *
 * @param options - the store, the token verifier and the limits; see {@link ApiOptions}
 * @throws when the spec cannot be compiled (never per request)
 * @example
 * ```ts
 * const api = createApi({ store: createMemoryStore(seed), auth: createJwtVerifier({ hs256Secret }) });
 * api.operations.map((op) => `${op.method} ${op.path}`);
 * ```
 */
export function createApi(options: ApiOptions): Api {
  const logger = options.logger ?? pino({ level: API_DEFAULTS.logLevel });
  const operations = readOperations(openapiDocument);
  const { onEvent } = options;
  const metrics = options.metrics && httpMetrics(options.metrics.registry);
  const tracing = options.tracing ?? tracingSdkRegistered();
  const rateLimiter =
    options.rateLimit === false
      ? undefined
      : createRateLimiter(
          options.rateLimit ?? {},
          metrics && { onRefusal: countRefusals(metrics) },
        );
  const run = createOperationRunner({
    // With metrics or tracing, each call of the store's ports is measured; without, none is wrapped.
    ...(metrics !== undefined || tracing
      ? instrumentedStore(options.store, metrics, tracing ? tracerOf() : undefined)
      : options.store),
    clock: options.clock ?? { now: () => new Date() },
    ids: options.ids ?? { newId: newUuid },
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
  });
  const prefixes = prefixesOf(operations);
  const handle = createPipeline({
    route: routeTable(operations, pathsOf(operations), prefixes),
    logger,
    logRequests: logger.isLevelEnabled?.('info') ?? true,
    responseHeaders: options.responseHeaders ?? {},
    verifier: options.auth,
    rateLimiter,
    bodyLimitBytes: options.bodyLimitBytes ?? API_DEFAULTS.bodyLimitBytes,
    requestTimeoutMs: options.requestTimeoutMs ?? API_DEFAULTS.requestTimeoutMs,
    requestValidators: compileRequestValidators(openapiDocument, operations),
    responseValidator:
      (options.validateResponses ?? API_DEFAULTS.validateResponses)
        ? compileResponseValidator(openapiDocument, operations)
        : undefined,
    run: tracing ? withinRequestSpans(run) : run,
    telemetry:
      metrics !== undefined || tracing ? createTelemetry(operations, metrics, tracing) : undefined,
    emit(events, request) {
      if (onEvent === undefined) return;
      // After the answer, in a microtask each; a failure (thrown or rejected) is logged.
      for (const event of events) queueMicrotask(() => handOn(onEvent, event, request));
    },
  });
  return { handle, operations, prefixes, logger };
}

/** Calls `onEvent` with an event; logs its failure, thrown or rejected. */
function handOn(
  onEvent: (event: RecordedEvent) => void | Promise<void>,
  event: RecordedEvent,
  request: LogSource,
): void {
  const failed = (error: unknown) => request.log.error({ err: error, event }, 'onEvent failed');
  try {
    const handled = onEvent(event);
    if (isThenable(handled)) handled.then(undefined, failed);
  } catch (error) {
    failed(error);
  }
}

/** Counts each refusal by the window that refused (both print at 0 until then). */
function countRefusals(metrics: HttpMetrics): (window: RateLimitWindow['name']) => void {
  const byWindow = {
    second: metrics.rateLimitRefusals.labels('second'),
    '15 minutes': metrics.rateLimitRefusals.labels('15 minutes'),
  };
  return (window) => byWindow[window].inc();
}
