/**
 * The pure workforce domain of workforce-kit: identifier rules, the employee and shift state
 * machines, the restaurant lookup rules, the repository ports, the use cases over them and an
 * in-memory store. Functions return neverthrow `Result`s; nothing here does I/O.
 *
 * @example
 * ```ts
 * import { createMemoryStore, parseGuid, unarchiveEmployee } from '@workforce-kit/core';
 *
 * const store = createMemoryStore(seed);
 * const deps = { employees: store.employees, clock: { now: () => new Date() }, ids: { newId: () => crypto.randomUUID() } };
 * // The use cases take parsed identifiers: parse what the client sent first.
 * const restaurant = parseGuid(restaurantHeader, 'restaurant');
 * const employee = parseGuid(employeeId, 'employeeId');
 * if (restaurant.isOk() && employee.isOk()) {
 *   // A Result at once from the memory store (a ResultAsync from a database): await takes either.
 *   const result = await unarchiveEmployee(deps, { restaurant: restaurant.value, employee: employee.value, requestId });
 * }
 * ```
 *
 * @packageDocumentation
 */

/**
 * neverthrow's constructors and types, as the ports use them: a store of your own answers with
 * these, from the copy of neverthrow this package depends on, with no install of its own.
 */
export { err, errAsync, ok, okAsync, type Result, ResultAsync } from 'neverthrow';
export { archive, unarchive } from './employee-machine.js';
export {
  type DomainError,
  type EmployeeNotArchived,
  type EmployeeNotFound,
  type IdentityChangeRefused,
  identityChangeRefused,
  type MalformedIdentifier,
  type RestaurantNotFound,
  type RestaurantNotFoundReason,
  type ShiftNotFound,
  type StorageError,
  type StorageUnavailable,
  storageUnavailable,
  type VersionConflict,
  versionConflict,
  type WriteContention,
} from './errors.js';
export {
  type DomainEvent,
  type EmployeeArchived,
  type EmployeeUnarchived,
  eventSubject,
  type RecordedEvent,
  type ShiftDeleted,
} from './events.js';
export {
  type ExternalId,
  formatRecordId,
  type Guid,
  IDENTIFIER_PATTERNS,
  isGuid,
  parseExternalId,
  parseGuid,
  parseRecordId,
  type RecordIdentifier,
} from './identifiers.js';
export {
  andThen,
  isThenable,
  type MaybeAsync,
  runSteps,
  type StepList,
  type Thenable,
  toResultAsync,
  whenReady,
} from './maybe-async.js';
export { createMemoryStore, type MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export type {
  ChangeRead,
  Clock,
  ConditionalWrite,
  ConditionalWriter,
  EmployeeRepository,
  EventLog,
  IdSource,
  RestaurantRepository,
  SeedOutcome,
  SeedRecords,
  ShiftRepository,
  WorkforceStore,
} from './ports.js';
export type {
  RateLimitWindow,
  WindowCount,
  WindowCounter,
  WindowDecision,
} from './rate-limit-ports.js';
export {
  type DaySchedule,
  type Deletion,
  type Delivery,
  type Employee,
  type EmployeeFields,
  type Instant,
  type OnlineOrdering,
  type PaymentOptions,
  type PrepTimes,
  type Reference,
  type Restaurant,
  type RestaurantGeneral,
  type RestaurantLocation,
  type RestaurantUrls,
  type ScheduleConfig,
  type Schedules,
  type Service,
  type Shift,
  type ShiftFields,
  type StoredRecord,
  type TimeOfDay,
  type WageOverride,
  WEEKDAYS,
  type Weekday,
} from './records.js';
export { type RestaurantQuery, restaurantToRead, visibleRestaurant } from './restaurant-lookup.js';
export { markDeleted } from './shift-machine.js';
export { isNoOp, type Transition } from './transition.js';
export {
  type ArchiveEmployeeCommand,
  type ArchiveEmployeeError,
  archiveEmployee,
  type Committed,
  DEFAULT_MAX_ATTEMPTS,
  type DeleteShiftCommand,
  type DeleteShiftError,
  deleteShift,
  type GetRestaurantError,
  type GetRestaurantQuery,
  getRestaurant,
  type UnarchiveEmployeeCommand,
  type UnarchiveEmployeeError,
  type UseCaseDeps,
  unarchiveEmployee,
} from './use-cases.js';
