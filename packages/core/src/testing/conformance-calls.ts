// The conformance suite's calls of a store's ports, each checked with a failure that names the
// port method, what it was called with, and what came back.
import type { RecordedEvent } from '../events.js';
import {
  type ExternalId,
  type Guid,
  parseExternalId,
  type RecordIdentifier,
} from '../identifiers.js';
import type { Clock, ConditionalWrite, IdSource, WorkforceStore } from '../ports.js';
import type { Employee, Shift } from '../records.js';
import { newGuid } from './builders.js';
import { expectFound, expectOk, expectSameRecord, shown } from './conformance-failures.js';

/** The two kinds of record a store writes. */
export type Kind = 'employees' | 'shifts';
/** The record of a kind. */
export type RecordOf<K extends Kind> = K extends 'employees' ? Employee : Shift;

/** An external identifier a test writes: a malformed one fails that test. */
export function externalId(value: string): ExternalId {
  const parsed = parseExternalId(value);
  if (parsed === undefined) throw new Error(`not an external identifier: ${value}`);
  return parsed;
}

export const byGuid = (guid: Guid) => ({ kind: 'guid', guid }) as const;
export const byExternalId = (value: string) =>
  ({ kind: 'externalId', externalId: externalId(value) }) as const;

export const fixedClock: Clock = { now: () => new Date('2026-03-01T12:00:00.000Z') };
export const randomIds: IdSource = { newId: () => globalThis.crypto.randomUUID() };

/** How a failure names an identifier: `GUID 6a2b…`, `external id "PAYROLL:7"`. */
export const idText = (id: RecordIdentifier) =>
  id.kind === 'guid' ? `GUID ${id.guid}` : `external id ${JSON.stringify(id.externalId)}`;

/** `employees.find(restaurant …, GUID …)`: a call as a failure names it. */
export const findCall = (kind: Kind, restaurantGuid: Guid, id: RecordIdentifier) =>
  `${kind}.find(restaurant ${restaurantGuid}, ${idText(id)})`;

/** What `find` returns, or a failure naming the call and its error. */
export async function found<K extends Kind>(
  store: WorkforceStore,
  kind: K,
  restaurantGuid: Guid,
  id: RecordIdentifier,
): Promise<RecordOf<K> | null> {
  const answer = await store[kind].find(restaurantGuid, id);
  return expectFound(findCall(kind, restaurantGuid, id), answer) as RecordOf<K> | null;
}

/** The raw answer of a write (a test of a refusal reads its error). */
export async function write<K extends Kind>(
  store: WorkforceStore,
  kind: K,
  change: ConditionalWrite<RecordOf<K>>,
) {
  const repository = store[kind] as WorkforceStore['employees'] | WorkforceStore['shifts'];
  return (await (repository.write as (c: ConditionalWrite<RecordOf<K>>) => unknown)(
    change,
  )) as Awaited<ReturnType<WorkforceStore['employees']['write']>>;
}

/** What `events.list` returns, or a failure naming its error. */
export async function listedEvents(
  store: WorkforceStore,
  restaurantGuid?: Guid,
): Promise<readonly RecordedEvent[]> {
  const call = restaurantGuid === undefined ? 'events.list()' : `events.list(${restaurantGuid})`;
  return expectOk(call, await store.events.list(restaurantGuid));
}

/**
 * Fails unless the store gives `expected` back, field by field, by its GUID and by its external
 * id (when it has one).
 *
 * @param source - where `expected` comes from, for the failure: `the seeded record`
 */
export async function expectStored<K extends Kind>(
  store: WorkforceStore,
  kind: K,
  expected: RecordOf<K>,
  source: string,
): Promise<void> {
  const ids: RecordIdentifier[] = [byGuid(expected.guid)];
  if (expected.externalId !== undefined) ids.push(byExternalId(expected.externalId));
  for (const id of ids) {
    const actual = await found(store, kind, expected.restaurantGuid, id);
    expectSameRecord(findCall(kind, expected.restaurantGuid, id), actual, expected, source);
  }
}

/** Fails unless `find` gives null: `why` says why nothing should be found. */
export async function expectNotFound(
  store: WorkforceStore,
  kind: Kind,
  restaurantGuid: Guid,
  id: RecordIdentifier,
  why: string,
): Promise<void> {
  const actual = await found(store, kind, restaurantGuid, id);
  if (actual !== null) {
    throw new Error(
      `${findCall(kind, restaurantGuid, id)} returned record ${actual.guid} of restaurant ${actual.restaurantGuid}; expected null: ${why}`,
    );
  }
}

/** Fails unless the event log holds `expected`, in order, field by field. */
export async function expectEvents(
  store: WorkforceStore,
  expected: readonly RecordedEvent[],
  why: string,
  restaurantGuid?: Guid,
): Promise<void> {
  const actual = await listedEvents(store, restaurantGuid);
  const call = restaurantGuid === undefined ? 'events.list()' : `events.list(${restaurantGuid})`;
  if (actual.length !== expected.length) {
    throw new Error(
      `${call} returned ${actual.length} events; expected ${expected.length} (${why}): ${shown(
        actual.map((event) => event.type),
      )}`,
    );
  }
  expectSameRecord(call, actual, expected, `the events ${why}`);
}

/** An event of a change of `record`, as the use cases store them. */
export function anEvent(
  record: Employee | Shift,
  type: 'EmployeeArchived' | 'EmployeeUnarchived' | 'ShiftDeleted',
): RecordedEvent {
  const base = {
    restaurantGuid: record.restaurantGuid,
    occurredAt: '2026-03-01T12:00:00.000Z',
    eventId: newGuid(),
    requestId: `req-${newGuid()}`,
  };
  return type === 'ShiftDeleted'
    ? { ...base, type, shiftGuid: record.guid }
    : { ...base, type, employeeGuid: record.guid };
}
