import type { Guid, RecordIdentifier } from './identifiers.js';

/**
 * An identifier input that is not of the form it must have: what `parseGuid` and `parseRecordId`
 * return. The use cases take parsed identifiers, so none of them returns it.
 */
export interface MalformedIdentifier {
  readonly type: 'MalformedIdentifier';
  /** The input it came from, as the caller of the parser named it (the HTTP edge: `/params/shiftId`). */
  readonly field: string;
  readonly value: string;
  /** What the field accepts: a GUID, or a GUID or an external identifier. */
  readonly expected: 'guid' | 'guid-or-external-id';
}

/** No employee with this GUID (or external identifier) belongs to the context restaurant. */
export interface EmployeeNotFound {
  readonly type: 'EmployeeNotFound';
  readonly restaurantGuid: Guid;
  readonly employeeId: RecordIdentifier;
}

/** Unarchive of an employee that is not archived. Nothing changed. */
export interface EmployeeNotArchived {
  readonly type: 'EmployeeNotArchived';
  readonly restaurantGuid: Guid;
  readonly employeeGuid: Guid;
}

/** The identifier matches no shift of the context restaurant. */
export interface ShiftNotFound {
  readonly type: 'ShiftNotFound';
  readonly restaurantGuid: Guid;
  readonly shiftId: RecordIdentifier;
}

/**
 * Why a restaurant is not found. All reasons look the same to a client (the record of another
 * restaurant is never hinted at); the reason is for logs.
 */
export type RestaurantNotFoundReason =
  | 'malformed-guid'
  | 'not-the-context'
  | 'missing'
  | 'archived';

/** The restaurant is not visible in this context. */
export interface RestaurantNotFound {
  readonly type: 'RestaurantNotFound';
  readonly requested: string;
  readonly reason: RestaurantNotFoundReason;
}

/** The store could not be reached or failed; nothing was changed by the failed call. */
export interface StorageUnavailable {
  readonly type: 'StorageUnavailable';
  /** The port operation that failed, for logs. */
  readonly operation: string;
  /** The underlying failure, for logs only; never shown to a client. */
  readonly cause?: unknown;
}

/**
 * A compare-and-set write found another version than the one read: someone else changed the
 * record first. Returned by repository writes; use cases re-read and decide again.
 */
export interface VersionConflict {
  readonly type: 'VersionConflict';
  readonly guid: Guid;
  readonly expectedVersion: number;
}

/**
 * A write that would change a record's identity (its restaurant, GUID or external identifier):
 * refused, and nothing changed. No use case asks for one; it is a defect of the caller, not a
 * failure of the store.
 */
export interface IdentityChangeRefused {
  readonly type: 'IdentityChangeRefused';
  readonly guid: Guid;
}

/** A use case lost the compare-and-set race on every attempt. Nothing was changed by it. */
export interface WriteContention {
  readonly type: 'WriteContention';
  /** The record's identifier as the caller gave it. */
  readonly subject: string;
  readonly attempts: number;
}

/** Every error a use case can return. The HTTP edge maps each `type` to exactly one status. */
export type DomainError =
  | EmployeeNotFound
  | EmployeeNotArchived
  | ShiftNotFound
  | RestaurantNotFound
  | StorageUnavailable
  | WriteContention
  | IdentityChangeRefused;

/** The errors a repository port may return. */
export type StorageError = StorageUnavailable;

export const malformedIdentifier = (
  field: string,
  value: string,
  expected: MalformedIdentifier['expected'],
): MalformedIdentifier => ({ type: 'MalformedIdentifier', field, value, expected });

export const employeeNotFound = (
  restaurantGuid: Guid,
  employeeId: RecordIdentifier,
): EmployeeNotFound => ({ type: 'EmployeeNotFound', restaurantGuid, employeeId });

export const employeeNotArchived = (
  restaurantGuid: Guid,
  employeeGuid: Guid,
): EmployeeNotArchived => ({ type: 'EmployeeNotArchived', restaurantGuid, employeeGuid });

export const shiftNotFound = (restaurantGuid: Guid, shiftId: RecordIdentifier): ShiftNotFound => ({
  type: 'ShiftNotFound',
  restaurantGuid,
  shiftId,
});

export const restaurantNotFound = (
  requested: string,
  reason: RestaurantNotFoundReason,
): RestaurantNotFound => ({ type: 'RestaurantNotFound', requested, reason });

/**
 * The error a store returns when it cannot be reached or fails: the HTTP edge answers 503 with
 * `Retry-After`, and logs `cause`, which no client sees.
 *
 * @param operation - what the store was doing, such as `employees.find`
 * @param cause - the underlying error, for the log
 * @returns the `StorageUnavailable` error
 */
export const storageUnavailable = (operation: string, cause?: unknown): StorageUnavailable =>
  cause === undefined
    ? { type: 'StorageUnavailable', operation }
    : { type: 'StorageUnavailable', operation, cause };

/**
 * The error a store's conditional write returns when the record is no longer at the version it
 * was read at: another writer won, and the use case reads again and decides again.
 *
 * @param guid - the record's GUID
 * @param expectedVersion - the version the write was conditional on
 * @returns the `VersionConflict` error
 */
export const versionConflict = (guid: Guid, expectedVersion: number): VersionConflict => ({
  type: 'VersionConflict',
  guid,
  expectedVersion,
});

/**
 * The error a store returns for a write that would change a record's identity (its restaurant,
 * GUID or external identifier), which no transition does.
 *
 * @param guid - the record's GUID
 * @returns the `IdentityChangeRefused` error
 */
export const identityChangeRefused = (guid: Guid): IdentityChangeRefused => ({
  type: 'IdentityChangeRefused',
  guid,
});

export const writeContention = (subject: string, attempts: number): WriteContention => ({
  type: 'WriteContention',
  subject,
  attempts,
});
