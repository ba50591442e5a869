import { err, ok, okAsync, type Result, type ResultAsync } from 'neverthrow';
import { retryOnVersionConflict } from './_internals/retry.js';
import { archive, unarchive } from './employee-machine.js';
import {
  type EmployeeAlreadyArchived,
  type EmployeeNotArchived,
  type EmployeeNotFound,
  employeeNotFound,
  type MalformedIdentifier,
  type RestaurantNotFound,
  type ShiftNotFound,
  type StorageUnavailable,
  shiftNotFound,
  type VersionConflict,
  type WriteContention,
} from './errors.js';
import type { RecordedEvent } from './events.js';
import {
  formatShiftId,
  type Guid,
  parseGuid,
  parseShiftId,
  type ShiftIdentifier,
} from './identifiers.js';
import type {
  Clock,
  ConditionalWriter,
  EmployeeRepository,
  IdSource,
  RestaurantRepository,
  ShiftRepository,
} from './ports.js';
import type { Employee, Restaurant, Shift, StoredRecord } from './records.js';
import { restaurantToRead, visibleRestaurant } from './restaurant-lookup.js';
import { markDeleted } from './shift-machine.js';
import { isNoOp, type Transition } from './transition.js';

/** How many times a use case reads, decides and writes before giving up on a contended record. */
export const DEFAULT_MAX_ATTEMPTS = 8;

/** The ports the use cases need. Each use case takes only the ones it uses. */
export interface UseCaseDeps {
  readonly employees: EmployeeRepository;
  readonly shifts: ShiftRepository;
  readonly restaurants: RestaurantRepository;
  readonly clock: Clock;
  readonly ids: IdSource;
  /** @default DEFAULT_MAX_ATTEMPTS */
  readonly maxAttempts?: number;
}

/** A change as committed: the stored record and the events stored with it (none for a no-op). */
export interface Committed<T> {
  readonly record: T;
  readonly events: readonly RecordedEvent[];
}

/** Input of the employee use cases, as the caller received it (identifiers not yet parsed). */
export interface EmployeeCommand {
  /** The context restaurant's GUID (the `Platform-Restaurant-External-ID` header). */
  readonly restaurantContext: string;
  readonly employeeId: string;
  /** Recorded with the events. */
  readonly requestId: string;
}

/** Input of {@link deleteShift}. */
export interface DeleteShiftCommand {
  readonly restaurantContext: string;
  /** A platform GUID or an external identifier `{namingAuthority}:{value}`, percent-decoded. */
  readonly shiftId: string;
  readonly requestId: string;
}

/** Input of {@link getRestaurant}. */
export interface GetRestaurantQuery {
  readonly restaurantContext: string;
  /** The restaurant asked for, as given; anything but the context restaurant is not found. */
  readonly restaurantGuid: string;
  readonly includeArchived: boolean;
}

export type UnarchiveEmployeeError =
  | MalformedIdentifier
  | EmployeeNotFound
  | EmployeeNotArchived
  | StorageUnavailable
  | WriteContention;

export type ArchiveEmployeeError =
  | MalformedIdentifier
  | EmployeeNotFound
  | EmployeeAlreadyArchived
  | StorageUnavailable
  | WriteContention;

export type DeleteShiftError =
  | MalformedIdentifier
  | ShiftNotFound
  | StorageUnavailable
  | WriteContention;

export type GetRestaurantError = MalformedIdentifier | RestaurantNotFound | StorageUnavailable;

type EmployeeStep<E> = (employee: Employee, now: Date) => Result<Transition<Employee>, E>;

/**
 * Unarchives an employee of the context restaurant: reads it, applies {@link unarchive}, and
 * writes conditionally on the version read; on a version conflict it reads and decides again.
 * Of concurrent unarchives of one archived employee exactly one succeeds; the others get
 * `EmployeeNotArchived`.
 *
 * @param deps - the employee repository, clock and id source
 * @param command - the raw identifiers and the request id
 * @returns the stored employee and its `EmployeeUnarchived` event, or a typed error
 * @example
 * ```ts
 * const result = await unarchiveEmployee(deps, { restaurantContext, employeeId, requestId });
 * result.match(({ record }) => record.deleted, (error) => error.type); // false | 'EmployeeNotArchived' | …
 * ```
 */
export function unarchiveEmployee(
  deps: Pick<UseCaseDeps, 'employees' | 'clock' | 'ids' | 'maxAttempts'>,
  command: EmployeeCommand,
): ResultAsync<Committed<Employee>, UnarchiveEmployeeError> {
  return changeEmployee(deps, command, unarchive);
}

/**
 * Archives an employee of the context restaurant, as {@link unarchiveEmployee} does the inverse.
 * Of concurrent archives exactly one succeeds; the others get `EmployeeAlreadyArchived`.
 *
 * @returns the stored employee and its `EmployeeArchived` event, or a typed error
 * @example
 * ```ts
 * const result = await archiveEmployee(deps, { restaurantContext, employeeId, requestId });
 * ```
 */
export function archiveEmployee(
  deps: Pick<UseCaseDeps, 'employees' | 'clock' | 'ids' | 'maxAttempts'>,
  command: EmployeeCommand,
): ResultAsync<Committed<Employee>, ArchiveEmployeeError> {
  return changeEmployee(deps, command, archive);
}

/**
 * Marks a shift of the context restaurant deleted, found by GUID or external identifier. Deleting
 * a deleted shift succeeds and changes nothing. Of concurrent deletes all succeed and exactly one
 * changes the shift and records a `ShiftDeleted` event.
 *
 * @returns the stored shift and its event (none when it was already deleted), or a typed error
 * @example
 * ```ts
 * const result = await deleteShift(deps, { restaurantContext, shiftId: 'SCHEDULER:42', requestId });
 * ```
 */
export function deleteShift(
  deps: Pick<UseCaseDeps, 'shifts' | 'clock' | 'ids' | 'maxAttempts'>,
  command: DeleteShiftCommand,
): ResultAsync<Committed<Shift>, DeleteShiftError> {
  return parseGuid(command.restaurantContext, 'restaurantContext')
    .andThen((restaurantGuid) =>
      parseShiftId(command.shiftId).map((shiftId) => ({ restaurantGuid, shiftId })),
    )
    .asyncAndThen(({ restaurantGuid, shiftId }) => {
      // Read, decide, write: one step after the read (each andThen on a ResultAsync is a promise).
      const attempt = () =>
        deps.shifts
          .find(restaurantGuid, shiftId)
          .andThen((found) =>
            ownedShift(found, restaurantGuid, shiftId).asyncAndThen((shift) =>
              commit(
                deps.shifts,
                deps.ids,
                command.requestId,
                markDeleted(shift, deps.clock.now()),
              ),
            ),
          );
      return retryOnVersionConflict(
        formatShiftId(shiftId),
        deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        attempt,
      );
    });
}

/**
 * Returns the configuration of the context restaurant. Not found: a requested value that is not a
 * GUID, another restaurant than the context, a missing restaurant, or an archived one without
 * `includeArchived`.
 *
 * @example
 * ```ts
 * const result = await getRestaurant(deps, { restaurantContext, restaurantGuid, includeArchived: false });
 * ```
 */
export function getRestaurant(
  deps: Pick<UseCaseDeps, 'restaurants'>,
  query: GetRestaurantQuery,
): ResultAsync<Restaurant, GetRestaurantError> {
  return parseGuid(query.restaurantContext, 'restaurantContext')
    .map((contextGuid) => ({
      contextGuid,
      requested: query.restaurantGuid,
      includeArchived: query.includeArchived,
    }))
    .asyncAndThen((lookup) =>
      restaurantToRead(lookup)
        .asyncAndThen((guid) => deps.restaurants.findByGuid(guid))
        .andThen((found) => visibleRestaurant(found, lookup)),
    );
}

function changeEmployee<E extends EmployeeNotArchived | EmployeeAlreadyArchived>(
  deps: Pick<UseCaseDeps, 'employees' | 'clock' | 'ids' | 'maxAttempts'>,
  command: EmployeeCommand,
  step: EmployeeStep<E>,
): ResultAsync<
  Committed<Employee>,
  MalformedIdentifier | EmployeeNotFound | E | StorageUnavailable | WriteContention
> {
  return parseGuid(command.restaurantContext, 'restaurantContext')
    .andThen((restaurantGuid) =>
      parseGuid(command.employeeId, 'employeeId').map((employeeGuid) => ({
        restaurantGuid,
        employeeGuid,
      })),
    )
    .asyncAndThen(({ restaurantGuid, employeeGuid }) => {
      // Read, decide, write: one step after the read (each andThen on a ResultAsync is a promise).
      const attempt = () =>
        deps.employees
          .findByGuid(restaurantGuid, employeeGuid)
          .andThen((found) =>
            (isOwned(found, restaurantGuid, employeeGuid)
              ? step(found, deps.clock.now())
              : err(employeeNotFound(restaurantGuid, employeeGuid))
            ).asyncAndThen((transition) =>
              commit(deps.employees, deps.ids, command.requestId, transition),
            ),
          );
      return retryOnVersionConflict(
        employeeGuid,
        deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
        attempt,
      );
    });
}

/**
 * Whether a record read for (restaurant, guid) really is that record. Core checks what a store
 * returns, so that even a faulty store cannot show a record of another restaurant.
 */
function isOwned<T extends StoredRecord>(
  found: T | null,
  restaurantGuid: Guid,
  guid: Guid,
): found is T {
  return found !== null && found.restaurantGuid === restaurantGuid && found.guid === guid;
}

function ownedShift(
  found: Shift | null,
  restaurantGuid: Guid,
  shiftId: ShiftIdentifier,
): Result<Shift, ShiftNotFound> {
  const matches =
    found !== null &&
    found.restaurantGuid === restaurantGuid &&
    (shiftId.kind === 'guid'
      ? found.guid === shiftId.guid
      : found.externalId === shiftId.externalId);
  return matches ? ok(found) : err(shiftNotFound(restaurantGuid, shiftId));
}

/** Writes a transition conditionally on the version read; a no-op writes nothing. */
function commit<T extends StoredRecord>(
  repository: ConditionalWriter<T>,
  ids: IdSource,
  requestId: string,
  transition: Transition<T>,
): ResultAsync<Committed<T>, VersionConflict | StorageUnavailable> {
  if (isNoOp(transition)) return okAsync({ record: transition.record, events: [] });
  const events: RecordedEvent[] = transition.events.map((event) => ({
    ...event,
    eventId: ids.newId(),
    requestId,
  }));
  // andThen, not map: ResultAsync.map wraps every call in a generator-based awaiter.
  return repository
    .write({ record: transition.record, expectedVersion: transition.record.version, events })
    .andThen((stored) => ok({ record: stored, events }));
}
