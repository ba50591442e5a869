import {
  archiveEmployee,
  type Committed,
  type DomainError,
  deleteShift,
  type Employee,
  getRestaurant,
  type RecordedEvent,
  type Restaurant,
  type Shift,
  type UseCaseDeps,
  unarchiveEmployee,
} from '@workforce-kit/core';
import type { ResultAsync } from 'neverthrow';
import type { OperationId } from './operations.js';
import type { RequestTelemetry } from './telemetry.js';
import { toEmployeeBody, toRestaurantBody, toShiftBody } from './wire-bodies.js';

/** What an operation is given: its validated inputs and the request's id. */
export interface OperationInput {
  /** The path parameters, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The query, validated and coerced to the spec's types. */
  readonly query: Readonly<Record<string, unknown>>;
  /** The `Platform-Restaurant-External-ID` header as sent. */
  readonly restaurantContext: string;
  readonly requestId: string;
  /**
   * The request's telemetry, when the API has metrics or tracing: with tracing, the use case runs
   * within its span, so that the store's spans are children of the request's.
   */
  readonly telemetry?: RequestTelemetry | undefined;
}

/** An operation's outcome: the 200's body and the events of its change, or the core's error. */
export type OperationResult =
  | { readonly body: object; readonly events: readonly RecordedEvent[]; readonly error?: undefined }
  | { readonly error: DomainError };

/** Runs an operation's use case. */
export type OperationRunner = (
  id: OperationId,
  input: OperationInput,
) => PromiseLike<OperationResult>;

const committed =
  <T>(toBody: (record: T) => object) =>
  ({ record, events }: Committed<T>) => ({ body: toBody(record), events });

/** The use case of each operation, and how its value goes on the wire. */
function useCases(deps: UseCaseDeps): {
  readonly [id in OperationId]: (
    input: OperationInput,
  ) => ResultAsync<OperationResult, DomainError>;
} {
  const employee = committed<Employee>(toEmployeeBody);
  const shift = committed<Shift>(toShiftBody);
  return {
    unarchiveEmployee: ({ params, restaurantContext, requestId }) =>
      unarchiveEmployee(deps, {
        restaurantContext,
        employeeId: params.employeeId ?? '',
        requestId,
      }).map(employee),
    archiveEmployee: ({ params, restaurantContext, requestId }) =>
      archiveEmployee(deps, {
        restaurantContext,
        employeeId: params.employeeId ?? '',
        requestId,
      }).map(employee),
    deleteShift: ({ params, restaurantContext, requestId }) =>
      deleteShift(deps, { restaurantContext, shiftId: params.shiftId ?? '', requestId }).map(shift),
    getRestaurant: ({ params, query, restaurantContext }) =>
      getRestaurant(deps, {
        restaurantContext,
        restaurantGuid: params.restaurantGUID ?? '',
        // Validated and coerced: true, false or absent.
        includeArchived: query.includeArchived === true,
      }).map((restaurant: Restaurant) => ({ body: toRestaurantBody(restaurant), events: [] })),
  };
}

/**
 * The runner of the operations over the use cases. A use case never rejects (its errors are
 * values); a store that throws anyway rejects the returned promise, for the adapter's 500.
 */
export function createOperationRunner(deps: UseCaseDeps): OperationRunner {
  const byId = useCases(deps);
  return (id, input) =>
    byId[id](input).then((result) => (result.isOk() ? result.value : { error: result.error }));
}

/**
 * The runner with each use case run within its request's span (`input.telemetry`), so that the
 * store's spans are children of the request's: for an API with tracing only.
 */
export function withinRequestSpans(run: OperationRunner): OperationRunner {
  return (id, input) =>
    input.telemetry === undefined ? run(id, input) : input.telemetry.within(() => run(id, input));
}
