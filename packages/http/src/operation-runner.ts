import {
  archiveEmployee,
  type Committed,
  type DomainError,
  deleteShift,
  type Employee,
  type Guid,
  getRestaurant,
  type RecordedEvent,
  type Restaurant,
  type Shift,
  type UseCaseDeps,
  unarchiveEmployee,
} from '@workforce-kit/core';
import type { ResultAsync } from 'neverthrow';
import type { PathInputs } from './identifier-inputs.js';
import type { OperationId } from './operations.js';
import type { RequestTelemetry } from './telemetry.js';
import { toEmployeeBody, toRestaurantBody, toShiftBody } from './wire-bodies.js';

/** What an operation is given: its validated inputs, identifiers parsed, and the request's id. */
export interface OperationInput {
  /** The context restaurant: the `Platform-Restaurant-External-ID` header, parsed. */
  readonly restaurant: Guid;
  /** The path parameters, percent-decoded, each identifier parsed. */
  readonly path: PathInputs;
  /** The query, validated and coerced to the spec's types. */
  readonly query: Readonly<Record<string, unknown>>;
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

/**
 * The use case of each operation, its command made of the parsed inputs (the spec names each
 * identifier's parser: `GuidInput`, `RecordIdInput`), and how its value goes on the wire.
 */
function useCases(deps: UseCaseDeps): {
  readonly [id in OperationId]: (
    input: OperationInput,
  ) => ResultAsync<OperationResult, DomainError>;
} {
  const employee = committed<Employee>(toEmployeeBody);
  const shift = committed<Shift>(toShiftBody);
  return {
    unarchiveEmployee: ({ restaurant, path, requestId }) =>
      unarchiveEmployee(deps, { restaurant, employee: path.guid('employeeId'), requestId }).map(
        employee,
      ),
    archiveEmployee: ({ restaurant, path, requestId }) =>
      archiveEmployee(deps, { restaurant, employee: path.recordId('employeeId'), requestId }).map(
        employee,
      ),
    deleteShift: ({ restaurant, path, requestId }) =>
      deleteShift(deps, { restaurant, shift: path.recordId('shiftId'), requestId }).map(shift),
    getRestaurant: ({ restaurant, path, query }) =>
      getRestaurant(deps, {
        restaurant,
        // As sent: anything but the context restaurant, a value that is not a GUID included, is not found.
        requested: path.text('restaurantGUID'),
        // Validated and coerced: true, false or absent.
        includeArchived: query.includeArchived === true,
      }).map((found: Restaurant) => ({ body: toRestaurantBody(found), events: [] })),
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
