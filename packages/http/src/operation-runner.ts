import {
  archiveEmployee,
  type Committed,
  type DomainError,
  deleteShift,
  type Employee,
  type Guid,
  getRestaurant,
  type MaybeAsync,
  type RecordedEvent,
  type Restaurant,
  type Shift,
  type UseCaseDeps,
  unarchiveEmployee,
  whenReady,
} from '@workforce-kit/core';
import { ok, type Result } from 'neverthrow';
import type { PathInputs } from './identifier-inputs.js';
import type { OperationId } from './operations.js';
import type { RequestTelemetry } from './telemetry.js';
import { employeeJson, shiftJson, toRestaurantBody } from './wire-bodies.js';

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

/** The 200 of an operation: its body (the JSON text and its byte length), and its change's events. */
export interface Answered {
  readonly text: string;
  /** `Content-Length`: the text's length in bytes. */
  readonly length: string;
  readonly events: readonly RecordedEvent[];
}

/** An operation's outcome: its 200, or the core's error. */
export type OperationResult = Result<Answered, DomainError>;

/** Runs an operation's use case: its outcome now when the store answers at once, else later. */
export type OperationRunner = (
  id: OperationId,
  input: OperationInput,
) => MaybeAsync<OperationResult>;

const NO_EVENTS: readonly RecordedEvent[] = Object.freeze([]);

/** A 200's body as it goes on the wire. */
function answered(text: string, events: readonly RecordedEvent[]): OperationResult {
  return ok({ text, length: String(Buffer.byteLength(text)), events });
}

/**
 * The 200 of a read, kept with the record it was made of: a store's records are immutable values
 * (the memory store's are frozen), so the same record read again is answered with the same
 * outcome, made once.
 */
function keptWith<T extends object>(toJson: (record: T) => string): (record: T) => OperationResult {
  const kept = new WeakMap<T, OperationResult>();
  return (record) => {
    const known = kept.get(record);
    if (known !== undefined) return known;
    const result = answered(toJson(record), NO_EVENTS);
    kept.set(record, result);
    return result;
  };
}

const committed =
  <T>(toJson: (record: T) => string) =>
  ({ record, events }: Committed<T>) =>
    answered(toJson(record), events);

/** A use case's result as the pipeline takes it: its 200 made of its value, or its error. */
const outcomeOf =
  <T>(toAnswer: (value: T) => OperationResult) =>
  (result: Result<T, DomainError>): OperationResult =>
    result.andThen(toAnswer);

/**
 * The use case of each operation, its command made of the parsed inputs (the spec names each
 * identifier's parser: `GuidInput`, `RecordIdInput`), and how its value goes on the wire.
 */
function useCases(deps: UseCaseDeps): {
  readonly [id in OperationId]: (input: OperationInput) => MaybeAsync<OperationResult>;
} {
  const employee = outcomeOf(committed<Employee>(employeeJson));
  const shift = outcomeOf(committed<Shift>(shiftJson));
  const restaurant = outcomeOf(
    keptWith<Restaurant>((record) => JSON.stringify(toRestaurantBody(record))),
  );
  return {
    unarchiveEmployee: ({ restaurant, path, requestId }) =>
      whenReady(
        unarchiveEmployee(deps, { restaurant, employee: path.guid('employeeId'), requestId }),
        employee,
      ),
    archiveEmployee: ({ restaurant, path, requestId }) =>
      whenReady(
        archiveEmployee(deps, { restaurant, employee: path.recordId('employeeId'), requestId }),
        employee,
      ),
    deleteShift: ({ restaurant, path, requestId }) =>
      whenReady(
        deleteShift(deps, { restaurant, shift: path.recordId('shiftId'), requestId }),
        shift,
      ),
    getRestaurant: ({ restaurant: context, path, query }) =>
      whenReady(
        getRestaurant(deps, {
          restaurant: context,
          // As sent: anything but the context restaurant, a value that is not a GUID included, is not found.
          requested: path.text('restaurantGUID'),
          // Validated and coerced: true, false or absent.
          includeArchived: query.includeArchived === true,
        }),
        restaurant,
      ),
  };
}

/**
 * The runner of the operations over the use cases: the outcome at once when the store answers at
 * once, else a promise of it. A use case never rejects (its errors are values); a store that
 * throws anyway throws (or rejects the promise), for the pipeline's 500.
 */
export function createOperationRunner(deps: UseCaseDeps): OperationRunner {
  const byId = useCases(deps);
  return (id, input) => byId[id](input);
}

/**
 * The runner with each use case run within its request's span (`input.telemetry`), so that the
 * store's spans are children of the request's: for an API with tracing only.
 */
export function withinRequestSpans(run: OperationRunner): OperationRunner {
  return (id, input) =>
    input.telemetry === undefined ? run(id, input) : input.telemetry.within(() => run(id, input));
}
