import { context, type Span, SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
import { isThenable, type MaybeAsync } from '@workforce-kit/core';
import type { Result } from 'neverthrow';
import type { ApiStore } from './api.js';
import type { HttpMetrics } from './http-metrics.js';

/** The name of a store call, as its metric label and span name say it. */
type StoreCall =
  | 'employees.find'
  | 'employees.write'
  | 'shifts.find'
  | 'shifts.write'
  | 'restaurants.findByGuid';

/**
 * A store call measured: its duration in `workforce_kit_store_call_duration_seconds{call}`
 * (the metric's child made here, once), and with tracing a span that is a child of the active
 * one (the request's). An error result of type `StorageUnavailable`, or a call that throws or
 * rejects, marks the span an error; other errors (`VersionConflict`) are outcomes the use case
 * handles, noted as `workforce_kit.store.error`.
 */
function measured<A, T, E extends { readonly type: string }>(
  call: StoreCall,
  port: (a: A) => MaybeAsync<Result<T, E>>,
  metrics: HttpMetrics | undefined,
  tracer: Tracer | undefined,
): (a: A) => MaybeAsync<Result<T, E>>;
function measured<A, B, T, E extends { readonly type: string }>(
  call: StoreCall,
  port: (a: A, b: B) => MaybeAsync<Result<T, E>>,
  metrics: HttpMetrics | undefined,
  tracer: Tracer | undefined,
): (a: A, b: B) => MaybeAsync<Result<T, E>>;
function measured<A, B, T, E extends { readonly type: string }>(
  call: StoreCall,
  port: (a: A, b: B) => MaybeAsync<Result<T, E>>,
  metrics: HttpMetrics | undefined,
  tracer: Tracer | undefined,
): (a: A, b: B) => MaybeAsync<Result<T, E>> {
  // The call's series from the start, at 0 (its child made once).
  metrics?.storeCalls.zero({ call });
  const histogram = metrics?.storeCalls.labels(call);
  // (Two arguments, the most a port takes, rather than a rest array made on every call.)
  return (a, b) => {
    const started = performance.now();
    const span = tracer?.startSpan(call, { kind: SpanKind.INTERNAL }, context.active());
    let result: MaybeAsync<Result<T, E>>;
    try {
      result = port(a, b);
    } catch (error) {
      finish(histogram, started, span, undefined, error);
      throw error;
    }
    // Answered at once: measured at once, and passed on as it is (no promise).
    if (!isThenable(result)) {
      finish(histogram, started, span, result.isErr() ? result.error : undefined);
      return result;
    }
    // Measured as it settles, through its own then (a ResultAsync's is its promise's): no extra
    // hop of Promise.resolve.
    return result.then(
      (outcome) => {
        finish(histogram, started, span, outcome.isErr() ? outcome.error : undefined);
        return outcome;
      },
      (error: unknown) => {
        finish(histogram, started, span, undefined, error ?? 'rejected');
        throw error;
      },
    );
  };
}

/** A store call's end: its duration observed, its span (with tracing) ended as it went. */
function finish(
  histogram: { observe(seconds: number): void } | undefined,
  started: number,
  span: Span | undefined,
  error: { readonly type: string } | undefined,
  thrown?: unknown,
): void {
  histogram?.observe((performance.now() - started) / 1000);
  if (span === undefined) return;
  if (thrown !== undefined) {
    span.recordException(thrown instanceof Error ? thrown : String(thrown));
    span.setStatus({ code: SpanStatusCode.ERROR });
  } else if (error !== undefined) {
    span.setAttribute('workforce_kit.store.error', error.type);
    if (error.type === 'StorageUnavailable') span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/**
 * The store with each port call measured (see {@link measured}): made once, when the API is
 * created with metrics or tracing; without either, the API calls the store as it is.
 */
export function instrumentedStore(
  store: ApiStore,
  metrics: HttpMetrics | undefined,
  tracer: Tracer | undefined,
): ApiStore {
  const { employees, shifts, restaurants } = store;
  return {
    employees: {
      find: measured('employees.find', employees.find.bind(employees), metrics, tracer),
      write: measured('employees.write', employees.write.bind(employees), metrics, tracer),
    },
    shifts: {
      find: measured('shifts.find', shifts.find.bind(shifts), metrics, tracer),
      write: measured('shifts.write', shifts.write.bind(shifts), metrics, tracer),
    },
    restaurants: {
      findByGuid: measured(
        'restaurants.findByGuid',
        restaurants.findByGuid.bind(restaurants),
        metrics,
        tracer,
      ),
    },
  };
}
