import { err, ok, type Result } from 'neverthrow';
import { archive, unarchive } from './employee-machine.js';
import {
  type DomainError,
  type EmployeeNotArchived,
  type EmployeeNotFound,
  employeeNotFound,
  type IdentityChangeRefused,
  type RestaurantNotFound,
  type ShiftNotFound,
  type StorageError,
  type StorageUnavailable,
  shiftNotFound,
  type WriteContention,
  writeContention,
} from './errors.js';
import type { RecordedEvent } from './events.js';
import {
  type ExternalId,
  formatRecordId,
  type Guid,
  type parseGuid,
  type parseRecordId,
  type RecordIdentifier,
} from './identifiers.js';
import { andThen, type MaybeAsync, whenReady } from './maybe-async.js';
import type {
  Clock,
  ConditionalWriter,
  EmployeeRepository,
  IdSource,
  RestaurantRepository,
  ShiftRepository,
} from './ports.js';
import type { Employee, Restaurant, Shift, StoredRecord } from './records.js';
import { type RestaurantQuery, restaurantToRead, visibleRestaurant } from './restaurant-lookup.js';
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

/**
 * Input of {@link unarchiveEmployee}. Its identifiers are parsed: {@link parseGuid} makes them
 * from what a client sent (the HTTP edge does it as it validates the request).
 */
export interface UnarchiveEmployeeCommand {
  /** The context restaurant (the `Platform-Restaurant-External-ID` header). */
  readonly restaurant: Guid;
  /** The employee, by its platform GUID: unarchive takes no external identifier. */
  readonly employee: Guid;
  /** Recorded with the events. */
  readonly requestId: string;
}

/** Input of {@link archiveEmployee}: identifiers parsed by {@link parseGuid} and {@link parseRecordId}. */
export interface ArchiveEmployeeCommand {
  readonly restaurant: Guid;
  /** The employee, by its platform GUID or its external identifier `{namingAuthority}:{value}`. */
  readonly employee: RecordIdentifier;
  readonly requestId: string;
}

/** Input of {@link deleteShift}: identifiers parsed by {@link parseGuid} and {@link parseRecordId}. */
export interface DeleteShiftCommand {
  readonly restaurant: Guid;
  /** The shift, by its platform GUID or its external identifier `{namingAuthority}:{value}`. */
  readonly shift: RecordIdentifier;
  readonly requestId: string;
}

/** Input of {@link getRestaurant}. */
export interface GetRestaurantQuery {
  /** The context restaurant, parsed by {@link parseGuid}. */
  readonly restaurant: Guid;
  /**
   * The restaurant asked for, as given: not parsed, since anything but the context restaurant,
   * a value that is not a GUID included, is simply not found.
   */
  readonly requested: string;
  readonly includeArchived: boolean;
}

/** What {@link unarchiveEmployee} may fail with; the HTTP edge maps each to one problem. */
export type UnarchiveEmployeeError =
  | EmployeeNotFound
  | EmployeeNotArchived
  | StorageUnavailable
  | WriteContention
  | IdentityChangeRefused;

/** What {@link archiveEmployee} may fail with; the HTTP edge maps each to one problem. */
export type ArchiveEmployeeError =
  | EmployeeNotFound
  | StorageUnavailable
  | WriteContention
  | IdentityChangeRefused;

/** What {@link deleteShift} may fail with; the HTTP edge maps each to one problem. */
export type DeleteShiftError =
  | ShiftNotFound
  | StorageUnavailable
  | WriteContention
  | IdentityChangeRefused;

/** What {@link getRestaurant} may fail with; the HTTP edge maps each to one problem. */
export type GetRestaurantError = RestaurantNotFound | StorageUnavailable;

/**
 * Unarchives an employee of the context restaurant, named by its GUID: reads it, applies
 * {@link unarchive}, and writes conditionally on the version read; on a version conflict it reads
 * and decides again. Of concurrent unarchives of one archived employee exactly one succeeds; the
 * others get `EmployeeNotArchived`.
 *
 * @param deps - the employee repository, clock and id source
 * @param command - the parsed identifiers and the request id
 * @returns the stored employee and its `EmployeeUnarchived` event, or a typed error
 * @example
 * ```ts
 * // The identifiers as a client sent them, parsed first: a malformed one is refused before the store is read.
 * const parsed = Result.combine([
 *   parseGuid(restaurantHeader, 'restaurant'),
 *   parseGuid(employeeId, 'employeeId'),
 * ]);
 * // A Result at once from the memory store, a promise of one from a database: await takes either.
 * const result = parsed.isErr()
 *   ? parsed
 *   : await unarchiveEmployee(deps, { restaurant: parsed.value[0], employee: parsed.value[1], requestId });
 * result.match(({ record }) => record.deleted, (error) => error.type); // false | 'MalformedIdentifier' | 'EmployeeNotArchived' | …
 * ```
 */
export function unarchiveEmployee(
  deps: Pick<UseCaseDeps, 'employees' | 'clock' | 'ids' | 'maxAttempts'>,
  command: UnarchiveEmployeeCommand,
): MaybeAsync<Result<Committed<Employee>, UnarchiveEmployeeError>> {
  const target: Target = {
    restaurantGuid: command.restaurant,
    id: { kind: 'guid', guid: command.employee },
  };
  return changeRecord(deps, deps.employees, target, command.requestId, UNARCHIVE);
}

/**
 * Archives an employee of the context restaurant, named by its GUID or its external identifier.
 * Archiving is idempotent: an archived employee is returned unchanged, with no event. Of
 * concurrent archives of one employee all succeed, and exactly one changes it and records an
 * `EmployeeArchived` event.
 *
 * @param deps - the employee repository, clock and id source
 * @param command - the parsed identifiers and the request id
 * @returns the stored employee and its event (none when it was already archived), or a typed error
 * @example
 * ```ts
 * const employee = parseRecordId('PAYROLL:10042', 'employeeId')._unsafeUnwrap(); // { kind: 'externalId', … }
 * const result = await archiveEmployee(deps, { restaurant, employee, requestId });
 * ```
 */
export function archiveEmployee(
  deps: Pick<UseCaseDeps, 'employees' | 'clock' | 'ids' | 'maxAttempts'>,
  command: ArchiveEmployeeCommand,
): MaybeAsync<Result<Committed<Employee>, ArchiveEmployeeError>> {
  const target: Target = { restaurantGuid: command.restaurant, id: command.employee };
  return changeRecord(deps, deps.employees, target, command.requestId, ARCHIVE);
}

/**
 * Marks a shift of the context restaurant deleted, found by GUID or external identifier. Deleting
 * a deleted shift succeeds and changes nothing. Of concurrent deletes all succeed and exactly one
 * changes the shift and records a `ShiftDeleted` event.
 *
 * @returns the stored shift and its event (none when it was already deleted), or a typed error
 * @example
 * ```ts
 * const shift = parseRecordId('SCHEDULER:42', 'shiftId')._unsafeUnwrap(); // { kind: 'externalId', … }
 * const result = await deleteShift(deps, { restaurant, shift, requestId });
 * ```
 */
export function deleteShift(
  deps: Pick<UseCaseDeps, 'shifts' | 'clock' | 'ids' | 'maxAttempts'>,
  command: DeleteShiftCommand,
): MaybeAsync<Result<Committed<Shift>, DeleteShiftError>> {
  const target: Target = { restaurantGuid: command.restaurant, id: command.shift };
  return changeRecord(deps, deps.shifts, target, command.requestId, DELETE_SHIFT);
}

/**
 * Returns the configuration of the context restaurant. Not found: a requested value that is not a
 * GUID, another restaurant than the context, a missing restaurant, or an archived one without
 * `includeArchived`.
 *
 * @example
 * ```ts
 * const restaurant = parseGuid(restaurantHeader, 'restaurant')._unsafeUnwrap();
 * const result = await getRestaurant(deps, { restaurant, requested: restaurantGUID, includeArchived: false });
 * ```
 */
export function getRestaurant(
  deps: Pick<UseCaseDeps, 'restaurants'>,
  query: GetRestaurantQuery,
): MaybeAsync<Result<Restaurant, GetRestaurantError>> {
  const lookup: RestaurantQuery = {
    contextGuid: query.restaurant,
    requested: query.requested,
    includeArchived: query.includeArchived,
  };
  const toRead = restaurantToRead(lookup);
  if (toRead.isErr()) return err(toRead.error);
  return andThen(deps.restaurants.findByGuid(toRead.value), visibleRestaurant, lookup);
}

/** A record a change names: its restaurant and its GUID or external identifier. */
interface Target {
  readonly restaurantGuid: Guid;
  readonly id: RecordIdentifier;
}

/** Where a change reads its record and writes it back: an employee or a shift repository. */
interface RecordRepository<T> extends ConditionalWriter<T> {
  find(restaurantGuid: Guid, id: RecordIdentifier): MaybeAsync<Result<T | null, StorageError>>;
}

/** What a change does with the record it read. */
interface Change<T, NotFound, Refusal> {
  /** The error when the target is not a record of the restaurant. */
  readonly notFound: (restaurantGuid: Guid, id: RecordIdentifier) => NotFound;
  /** The state machine step: the transition to commit, or why not. */
  readonly decide: (record: T, now: Date) => Result<Transition<T>, Refusal>;
}

/** What each change does with its record: made once, as it holds nothing of a request's. */
const UNARCHIVE: Change<Employee, EmployeeNotFound, EmployeeNotArchived> = {
  notFound: employeeNotFound,
  decide: unarchive,
};
const ARCHIVE: Change<Employee, EmployeeNotFound, never> = {
  notFound: employeeNotFound,
  decide: (employee, now) => ok(archive(employee, now)),
};
const DELETE_SHIFT: Change<Shift, ShiftNotFound, never> = {
  notFound: shiftNotFound,
  decide: (shift, now) => ok(markDeleted(shift, now)),
};

type ChangeRecordError<NotFound, Refusal> =
  | NotFound
  | Refusal
  | StorageUnavailable
  | WriteContention
  | IdentityChangeRefused;

/**
 * Read, decide, commit: reads the target, decides its transition, and writes it conditionally on
 * the version read. A lost race (a version conflict) reads and decides again, on the state that
 * won, at most `maxAttempts` times in all. Each step goes on at once when the store answers at
 * once (a `Result`), or when its answer settles (a promise of one).
 */
function changeRecord<
  T extends StoredRecord & { readonly externalId?: ExternalId },
  NotFound extends DomainError,
  Refusal extends DomainError,
>(
  deps: Pick<UseCaseDeps, 'clock' | 'ids' | 'maxAttempts'>,
  repository: RecordRepository<T>,
  target: Target,
  requestId: string,
  change: Change<T, NotFound, Refusal>,
): MaybeAsync<Result<Committed<T>, ChangeRecordError<NotFound, Refusal>>> {
  const maxAttempts = deps.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const attempt = (
    attemptNumber: number,
  ): MaybeAsync<Result<Committed<T>, ChangeRecordError<NotFound, Refusal>>> =>
    andThen(repository.find(target.restaurantGuid, target.id), (found) => {
      if (!isTarget(found, target)) return err(change.notFound(target.restaurantGuid, target.id));
      const decided = change.decide(found, deps.clock.now());
      if (decided.isErr()) return err(decided.error);
      const transition = decided.value;
      // A no-op writes nothing.
      if (isNoOp(transition)) return ok({ record: transition.record, events: NO_EVENTS });
      const events = recordedEvents(transition, deps.ids, requestId);
      const write = { record: transition.record, expectedVersion: found.version, events };
      return whenReady(repository.write(write), (written) => {
        if (written.isOk()) return ok({ record: written.value, events });
        if (written.error.type !== 'VersionConflict') return err(written.error);
        // Lost the race: read the state that won, and decide again.
        if (attemptNumber >= maxAttempts) {
          return err(writeContention(formatRecordId(target.id), attemptNumber));
        }
        return attempt(attemptNumber + 1);
      });
    });
  return attempt(1);
}

const NO_EVENTS: readonly RecordedEvent[] = Object.freeze([]);

/**
 * Whether a record read for a target really is that record. Core checks what a store returns, so
 * that even a faulty store cannot show or change a record of another restaurant.
 */
function isTarget<T extends StoredRecord & { readonly externalId?: ExternalId }>(
  found: T | null,
  target: Target,
): found is T {
  if (found === null || found.restaurantGuid !== target.restaurantGuid) return false;
  return target.id.kind === 'guid'
    ? found.guid === target.id.guid
    : found.externalId === target.id.externalId;
}

/** The events of a transition as they are stored: each with its id and the request's. */
function recordedEvents<T>(
  transition: Transition<T>,
  ids: IdSource,
  requestId: string,
): RecordedEvent[] {
  return transition.events.map((event) => ({ ...event, eventId: ids.newId(), requestId }));
}
