import { type Err, err, ok, type Result } from 'neverthrow';
import {
  type IdentityChangeRefused,
  identityChangeRefused,
  type StorageError,
  storageUnavailable,
  type VersionConflict,
  versionConflict,
} from './errors.js';
import type { RecordedEvent } from './events.js';
import type { Guid, RecordIdentifier } from './identifiers.js';
import type { ConditionalWrite, SeedOutcome, SeedRecords, WorkforceStore } from './ports.js';
import type { Employee, Restaurant, Shift, StoredRecord } from './records.js';

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

/**
 * A frozen deep copy of plain data (records and events are plain objects, arrays and primitives):
 * the store keeps its own copy of what it is given, which neither the caller's later changes nor
 * a caller of `find` can alter, and the caller's objects stay as they were. A part that is deeply
 * frozen already (one a state machine carried over from the record it read) cannot be changed by
 * anyone, and is kept as it is rather than copied.
 */
function frozenCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object' || isDeeplyFrozen(value)) return value;
  return frozenInPlace((Array.isArray(value) ? [...value] : { ...value }) as T & object);
}

/**
 * Freezes an object the store has just made (a spread copy: the data properties of the original,
 * an own `__proto__` key included, as data), with a frozen copy of each part that is not deeply
 * frozen already.
 */
function frozenInPlace<T extends object>(fresh: T): T {
  const fields = fresh as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const item = fields[key];
    if (item === null || typeof item !== 'object' || isDeeplyFrozen(item)) continue;
    const copy = frozenCopy(item);
    // An own `__proto__` key (JSON.parse makes one) is data, not the object's prototype.
    if (key === '__proto__') Object.defineProperty(fields, key, { value: copy, enumerable: true });
    else fields[key] = copy;
  }
  return Object.freeze(fresh);
}

/** Whether nothing in a value can change: it is frozen, and so is every object in it. */
function isDeeplyFrozen(value: object): boolean {
  if (!Object.isFrozen(value)) return false;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== null && typeof item === 'object' && !isDeeplyFrozen(item)) return false;
  }
  return true;
}

const NOT_FOUND = ok(null);

type Identified = StoredRecord & { readonly externalId?: string };

/**
 * The records of one kind (employees or shifts), by restaurant and GUID, and by restaurant and
 * external identifier.
 */
class RecordTable<T extends Identified> {
  /** Each restaurant's records by GUID (maps within a map: a lookup makes no key string). */
  readonly #byRestaurant = new Map<Guid, Map<Guid, T>>();
  /** Each restaurant's GUIDs by external identifier. */
  readonly #guidsByExternalId = new Map<Guid, Map<string, Guid>>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The record of this restaurant named by this identifier, or `null`. */
  find(restaurantGuid: Guid, id: RecordIdentifier): T | null {
    if (id.kind === 'guid') return this.byGuid(restaurantGuid, id.guid);
    const guid = this.#guidsByExternalId.get(restaurantGuid)?.get(id.externalId);
    return guid === undefined ? null : this.byGuid(restaurantGuid, guid);
  }

  /** The record of this restaurant with this GUID, or `null`. */
  byGuid(restaurantGuid: Guid, guid: Guid): T | null {
    return this.#byRestaurant.get(restaurantGuid)?.get(guid) ?? null;
  }

  /** Stores a record; its identity (restaurant, GUID, external id) is the caller's to keep. */
  put(record: T): void {
    let records = this.#byRestaurant.get(record.restaurantGuid);
    if (records === undefined) {
      records = new Map();
      this.#byRestaurant.set(record.restaurantGuid, records);
    }
    if (!records.has(record.guid)) this.#size++;
    records.set(record.guid, record);
    if (record.externalId !== undefined) {
      let guids = this.#guidsByExternalId.get(record.restaurantGuid);
      if (guids === undefined) {
        guids = new Map();
        this.#guidsByExternalId.set(record.restaurantGuid, guids);
      }
      guids.set(record.externalId, record.guid);
    }
  }
}

/** The most recent events, oldest first: a log that would keep every one would grow without bound. */
class RecentEvents {
  readonly #limit: number;
  #events: RecordedEvent[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Keeps frozen copies of the events. */
  append(events: readonly RecordedEvent[]): void {
    for (const event of events) this.#events.push(frozenCopy(event));
    // Trimmed in batches, so that keeping the log bounded costs O(1) per event.
    if (this.#events.length >= 2 * this.#limit) this.#events = this.#events.slice(-this.#limit);
  }

  /** The events kept, all or a restaurant's. */
  list(restaurantGuid?: Guid): RecordedEvent[] {
    const events =
      restaurantGuid === undefined
        ? this.#events
        : this.#events.filter((event) => event.restaurantGuid === restaurantGuid);
    return events.slice(-this.#limit);
  }
}

/** What a memory store holds: its records, its events, and whether it is closed. */
class MemoryData {
  readonly restaurants = new Map<string, Restaurant>();
  readonly employees = new RecordTable<Employee>();
  readonly shifts = new RecordTable<Shift>();
  readonly events: RecentEvents;
  closed = false;

  constructor(eventLogLimit: number) {
    this.events = new RecentEvents(eventLogLimit);
  }

  isEmpty(): boolean {
    return this.restaurants.size === 0 && this.employees.size === 0 && this.shifts.size === 0;
  }

  /** Stores frozen copies of the records. */
  load(data: SeedRecords): void {
    for (const restaurant of data.restaurants) {
      this.restaurants.set(restaurant.guid, frozenCopy(restaurant));
    }
    for (const employee of data.employees) this.employees.put(frozenCopy(employee));
    for (const shift of data.shifts) this.shifts.put(frozenCopy(shift));
  }

  /** The compare-and-set of both repositories: check version and identity, store record and events. */
  compareAndSet<T extends Identified>(
    table: RecordTable<T>,
    change: ConditionalWrite<T>,
  ): Result<T, VersionConflict | IdentityChangeRefused | StorageError> {
    const { record, expectedVersion } = change;
    const current = table.byGuid(record.restaurantGuid, record.guid);
    if (current === null || current.version !== expectedVersion) {
      return err(versionConflict(record.guid, expectedVersion));
    }
    if (record.externalId !== current.externalId) return err(identityChangeRefused(record.guid));
    const stored = frozenInPlace({ ...record, version: expectedVersion + 1 });
    table.put(stored);
    this.events.append(change.events);
    return ok(stored);
  }
}

/** The answer of every call after close. */
function unavailable(operation: string): Err<never, StorageError> {
  return err(storageUnavailable(operation, 'store closed'));
}

/** A record found, or none: `ok(null)` is made once. */
function found<T>(record: T | null): Result<T | null, never> {
  return record === null ? NOT_FOUND : ok(record);
}

/** The repository of one record kind; its calls answer without a closure of their own. */
function recordRepository<T extends Identified>(
  data: MemoryData,
  table: RecordTable<T>,
  kind: 'employees' | 'shifts',
) {
  const findCall = `${kind}.find`;
  const writeCall = `${kind}.write`;
  return {
    find: (restaurantGuid: Guid, id: RecordIdentifier) =>
      data.closed ? unavailable(findCall) : found(table.find(restaurantGuid, id)),
    write: (change: ConditionalWrite<T>) =>
      data.closed ? unavailable(writeCall) : data.compareAndSet(table, change),
  };
}

/**
 * Creates a store kept in memory: the reference implementation of the ports. Every call answers at
 * once, with a `Result` (no promise: a request it serves completes without a microtask), and each
 * compare-and-set happens in one synchronous step, so it is correct under any number of concurrent
 * callers. Data lives as long as the store; it is not shared between processes. (Wrapped in
 * `asynchronousStore` of `@workforce-kit/core/testing`, it answers later, as a database would.)
 *
 * @param seed - records to load at once (a parsed seed file, for one)
 * @param options - how many events to keep
 * @returns the store
 * @example
 * ```ts
 * const store = createMemoryStore({ restaurants: [restaurant], employees: [archivedEmployee], shifts: [] });
 * const result = await unarchiveEmployee({ employees: store.employees, clock, ids }, command);
 * store.recordedEvents(); // [{ type: 'EmployeeUnarchived', … }]
 * ```
 */
export function createMemoryStore(
  seed?: SeedRecords,
  options: MemoryStoreOptions = {},
): MemoryStore {
  const data = new MemoryData(options.eventLogLimit ?? 10_000);
  if (seed !== undefined) data.load(seed);
  /** Runs `body` as one atomic step, now; after close it fails. */
  const step = <T>(operation: string, body: () => Result<T, StorageError>) =>
    data.closed ? unavailable(operation) : body();
  return {
    employees: recordRepository(data, data.employees, 'employees'),
    shifts: recordRepository(data, data.shifts, 'shifts'),
    restaurants: {
      findByGuid: (restaurantGuid) =>
        data.closed
          ? unavailable('restaurants.findByGuid')
          : found(data.restaurants.get(restaurantGuid) ?? null),
    },
    events: {
      list: (restaurantGuid) => step('events.list', () => ok(data.events.list(restaurantGuid))),
    },
    seed: (records) =>
      step('seed', (): Result<SeedOutcome, StorageError> => {
        if (!data.isEmpty()) return ok({ seeded: false });
        data.load(records);
        return ok({ seeded: true });
      }),
    ping: () => step('ping', () => ok(undefined)),
    close: async () => {
      data.closed = true;
    },
    recordedEvents: () => data.events.list(),
  };
}
