import { err, ok, type Result, ResultAsync } from 'neverthrow';
import {
  type StorageError,
  storageUnavailable,
  type VersionConflict,
  versionConflict,
} from './errors.js';
import type { RecordedEvent } from './events.js';
import type { Guid, ShiftIdentifier } from './identifiers.js';
import type { ConditionalWrite, SeedOutcome, WorkforceStore } from './ports.js';
import type { Employee, Restaurant, Shift, StoredRecord } from './records.js';
import type { Seed } from './seed.js';

/** The memory store: a {@link WorkforceStore} whose recorded events can also be read at once. */
export interface MemoryStore extends WorkforceStore {
  /** The events kept (the most recent `eventLogLimit`), oldest first. */
  recordedEvents(): readonly RecordedEvent[];
}

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * How many of the most recent events to keep. The memory store is for tests and development; a
   * log that kept every event would grow without bound in a long-running process.
   * @default 10000
   */
  readonly eventLogLimit?: number;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const key in value) deepFreeze(value[key]);
    Object.freeze(value);
  }
  return value;
}

/** A seeded value is stored as a frozen copy: the caller keeps its own, mutable, data. */
function snapshot<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

const recordKey = (restaurantGuid: Guid, guid: Guid) => `${restaurantGuid} ${guid}`;
const externalKey = (restaurantGuid: Guid, externalId: string) => `${restaurantGuid} ${externalId}`;

/**
 * Creates a store kept in memory: the reference implementation of the ports. Every call completes
 * asynchronously, as a real store's would, and each compare-and-set happens in one synchronous
 * step, so it is correct under any number of concurrent async callers. Data lives as long as the
 * store; it is not shared between processes.
 *
 * @param seed - records to load at once (a parsed seed, see `parseSeed`)
 * @param options - how many events to keep
 * @returns the store
 * @example
 * ```ts
 * const store = createMemoryStore(parseSeed(json, new Date())._unsafeUnwrap());
 * const result = await unarchiveEmployee({ employees: store.employees, clock, ids }, command);
 * store.recordedEvents(); // [{ type: 'EmployeeUnarchived', … }]
 * ```
 */
export function createMemoryStore(seed?: Seed, options: MemoryStoreOptions = {}): MemoryStore {
  const eventLogLimit = options.eventLogLimit ?? 10_000;
  const restaurants = new Map<string, Restaurant>();
  const employees = new Map<string, Employee>();
  const shifts = new Map<string, Shift>();
  const shiftsByExternalId = new Map<string, string>();
  let events: RecordedEvent[] = [];
  let closed = false;

  /**
   * Runs `body` as one atomic step, now, and answers asynchronously, as a real store would;
   * after close it fails.
   */
  function step<T, E>(
    operation: string,
    body: () => Result<T, E | StorageError>,
  ): ResultAsync<T, E | StorageError> {
    return new ResultAsync(
      Promise.resolve(closed ? err(storageUnavailable(operation, 'store closed')) : body()),
    );
  }

  function loadShift(shift: Shift): void {
    const key = recordKey(shift.restaurantGuid, shift.guid);
    shifts.set(key, shift);
    if (shift.externalId !== undefined) {
      shiftsByExternalId.set(externalKey(shift.restaurantGuid, shift.externalId), key);
    }
  }

  function isEmpty(): boolean {
    return restaurants.size === 0 && employees.size === 0 && shifts.size === 0;
  }

  function load(data: Seed): void {
    for (const restaurant of data.restaurants)
      restaurants.set(restaurant.guid, snapshot(restaurant));
    for (const employee of data.employees) {
      employees.set(recordKey(employee.restaurantGuid, employee.guid), snapshot(employee));
    }
    for (const shift of data.shifts) loadShift(snapshot(shift));
  }

  /** The compare-and-set of both repositories: check version and identity, store record and events. */
  function compareAndSet<T extends StoredRecord & { readonly externalId?: string }>(
    table: Map<string, T>,
    change: ConditionalWrite<T>,
  ): Result<T, VersionConflict | StorageError> {
    const { record, expectedVersion } = change;
    const key = recordKey(record.restaurantGuid, record.guid);
    const current = table.get(key);
    if (current === undefined || current.version !== expectedVersion) {
      return err(versionConflict(record.guid, expectedVersion));
    }
    if (record.externalId !== current.externalId) {
      return err(storageUnavailable('write', 'a write may not change the external id'));
    }
    // A written record and its events are frozen in place rather than copied (a copy per write
    // cost more than the rest of a request): what was handed to the store is the store's now.
    const stored = deepFreeze({ ...record, version: expectedVersion + 1 });
    table.set(key, stored);
    for (const event of change.events) events.push(deepFreeze(event));
    // Trimmed in batches, so that keeping the log bounded costs O(1) per event.
    if (events.length >= 2 * eventLogLimit) events = events.slice(-eventLogLimit);
    return ok(stored);
  }

  if (seed !== undefined) load(seed);

  return {
    employees: {
      findByGuid: (restaurantGuid, employeeGuid) =>
        step('employees.findByGuid', () =>
          ok(employees.get(recordKey(restaurantGuid, employeeGuid)) ?? null),
        ),
      write: (change) => step('employees.write', () => compareAndSet(employees, change)),
    },
    shifts: {
      find: (restaurantGuid: Guid, shiftId: ShiftIdentifier) =>
        step('shifts.find', () => {
          const key =
            shiftId.kind === 'guid'
              ? recordKey(restaurantGuid, shiftId.guid)
              : shiftsByExternalId.get(externalKey(restaurantGuid, shiftId.externalId));
          return ok((key === undefined ? undefined : shifts.get(key)) ?? null);
        }),
      write: (change) => step('shifts.write', () => compareAndSet(shifts, change)),
    },
    restaurants: {
      findByGuid: (restaurantGuid) =>
        step('restaurants.findByGuid', () => ok(restaurants.get(restaurantGuid) ?? null)),
    },
    events: {
      list: (restaurantGuid) =>
        step('events.list', () =>
          ok(
            (restaurantGuid === undefined
              ? events
              : events.filter((event) => event.restaurantGuid === restaurantGuid)
            ).slice(-eventLogLimit),
          ),
        ),
    },
    seed: (data) =>
      step('seed', (): Result<SeedOutcome, StorageError> => {
        if (!isEmpty()) return ok({ seeded: false });
        load(data);
        return ok({ seeded: true });
      }),
    ping: () => step('ping', () => ok(undefined)),
    close: async () => {
      closed = true;
    },
    recordedEvents: () => events.slice(-eventLogLimit),
  };
}
