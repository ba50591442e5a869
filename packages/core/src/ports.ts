import type { Result } from 'neverthrow';
import type { IdentityChangeRefused, StorageError, VersionConflict } from './errors.js';
import type { RecordedEvent } from './events.js';
import type { Guid, RecordIdentifier } from './identifiers.js';
import type { MaybeAsync } from './maybe-async.js';
import type { Employee, Restaurant, Shift } from './records.js';

/**
 * A conditional write: store `record` only if the stored version is still `expectedVersion`, and
 * store `events` with it, atomically. The stored record gets version `expectedVersion + 1`.
 */
export interface ConditionalWrite<T> {
  /** The next state; its `restaurantGuid` and `guid` name the record to replace. */
  readonly record: T;
  /** The version that was read. */
  readonly expectedVersion: number;
  /** The events of the change, stored in the same atomic step. */
  readonly events: readonly RecordedEvent[];
}

/**
 * The read a use case makes of the record it is about to change, given to a repository's `find`
 * in place of the record's identifier. A store that keeps in process the records it last read or
 * wrote may answer this read from them, though another process may have changed the record since
 * (the PostgreSQL store on a server does), and then sets `fromCache`. A change decided from such a
 * record stands only once its write's version check has confirmed it; a no-op or a refusal
 * decided from it is read again with the identifier alone, which every store answers with the
 * record as it stands, and decided again. Such a store keeps, after a write that lost a race
 * (`VersionConflict`), the record as the database then holds it, or none, so that the change
 * decided again is not decided from the same stale record. A store that always answers with the
 * record as it stands leaves `fromCache` as it is: it needs nothing more.
 *
 * @example
 * ```ts
 * const read: ChangeRead = { ...id, fromCache: false };
 * const found = await store.employees.find(restaurant.guid, read);
 * // read.fromCache: answered from what the store keeps, to be confirmed unless a write does
 * ```
 */
export type ChangeRead = RecordIdentifier & { fromCache: boolean };

/** The compare-and-set write every mutable record's repository offers. */
export interface ConditionalWriter<T> {
  /**
   * Compare-and-set: replaces the record (of `record.restaurantGuid`, `record.guid`) when its
   * stored version is `expectedVersion`, and stores the events with it, atomically. The objects
   * it is given stay the caller's: the store neither changes (nor freezes) nor keeps them. A
   * record's identity (restaurant, GUID, external id) never changes: a write that changes its
   * external id is refused with `IdentityChangeRefused` and changes nothing.
   *
   * @returns the stored record (version `expectedVersion + 1`), or `VersionConflict` when the
   *   stored version differs or the record is missing; then nothing is written
   */
  write(
    change: ConditionalWrite<T>,
  ): MaybeAsync<Result<T, VersionConflict | IdentityChangeRefused | StorageError>>;
}

/**
 * Employees, always read and written within one restaurant. Implementations never throw or
 * reject: failures are `StorageUnavailable` (a typed error), and "not found" is `ok(null)`.
 *
 * Every method answers with a {@link MaybeAsync} `Result`: the `Result` when the answer is at hand
 * (the memory store, or a record a store holds), which lets a request be served without a promise,
 * or a promise of it when it must wait (a database): a `ResultAsync`, or an `async` method's
 * promise. A store that always answers asynchronously, as most do, needs nothing more.
 *
 * @example
 * ```ts
 * const employees: EmployeeRepository = {
 *   find: (restaurantGuid, id) =>
 *     ResultAsync.fromPromise(db.findEmployee(restaurantGuid, id), (cause) => storageUnavailable('find', cause)),
 *   write: (change) =>
 *     ResultAsync.fromPromise(db.compareAndSetEmployee(change), (cause) => storageUnavailable('write', cause))
 *       .andThen((stored) => (stored === null ? err(versionConflict(change.record.guid, change.expectedVersion)) : ok(stored))),
 * };
 * ```
 */
export interface EmployeeRepository extends ConditionalWriter<Employee> {
  /**
   * The employee of this restaurant with this GUID or external identifier, or `null`. An external
   * identifier is looked up within the restaurant only (the same one may name another
   * restaurant's employee). Given a {@link ChangeRead}, the store may answer from the records it
   * keeps in process, and says so.
   */
  find(
    restaurantGuid: Guid,
    employeeId: RecordIdentifier,
  ): MaybeAsync<Result<Employee | null, StorageError>>;
}

/** Shifts, always read and written within one restaurant. Never throws; see {@link EmployeeRepository}. */
export interface ShiftRepository extends ConditionalWriter<Shift> {
  /**
   * The shift of this restaurant with this GUID or external identifier, or `null`; given a
   * {@link ChangeRead}, as {@link EmployeeRepository.find}.
   */
  find(
    restaurantGuid: Guid,
    shiftId: RecordIdentifier,
  ): MaybeAsync<Result<Shift | null, StorageError>>;
}

/** Restaurant configurations. Never throws; see {@link EmployeeRepository}. */
export interface RestaurantRepository {
  /** The restaurant with this GUID, archived or not, or `null`. */
  findByGuid(restaurantGuid: Guid): MaybeAsync<Result<Restaurant | null, StorageError>>;
}

/** The events stored with their changes, in the order they were stored. */
export interface EventLog {
  /** Every stored event, oldest first; with a restaurant, only that restaurant's. */
  list(restaurantGuid?: Guid): MaybeAsync<Result<readonly RecordedEvent[], StorageError>>;
}

/**
 * The records a store is seeded with: restaurants, and their employees and shifts, each record at
 * its first version. A seed file is one source of them (`@workforce-kit/seed-file` parses it).
 */
export interface SeedRecords {
  readonly restaurants: readonly Restaurant[];
  readonly employees: readonly Employee[];
  readonly shifts: readonly Shift[];
}

/** Whether a seed was loaded. */
export interface SeedOutcome {
  /** `false` when the store already held data, and nothing was loaded. */
  readonly seeded: boolean;
}

/**
 * Everything the use cases and a host need from one store. The memory store and the PostgreSQL
 * store implement it; so can a store of your own (prove it with `describeStoreConformance`).
 */
export interface WorkforceStore {
  readonly employees: EmployeeRepository;
  readonly shifts: ShiftRepository;
  readonly restaurants: RestaurantRepository;
  readonly events: EventLog;
  /**
   * Loads records into an empty store, all of them or nothing. A store that holds any record is
   * left unchanged, so seeding twice changes nothing.
   */
  seed(records: SeedRecords): MaybeAsync<Result<SeedOutcome, StorageError>>;
  /** Succeeds when the store can serve requests (for readiness checks). */
  ping(): MaybeAsync<Result<void, StorageError>>;
  /** Releases the store's resources. Calls after close fail with `StorageUnavailable`. */
  close(): Promise<void>;
}

/** The time source. */
export interface Clock {
  /** The current time: the `modifiedDate`, `deletedDate` and event time of a change. */
  now(): Date;
}

/** The source of unique ids (event ids). */
export interface IdSource {
  /** A new unique id, such as `crypto.randomUUID()`. */
  newId(): string;
}
