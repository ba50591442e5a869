import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../events.js';
import type { ExternalId, Guid } from '../identifiers.js';
import type { Clock, IdSource, WorkforceStore } from '../ports.js';
import type { Employee, Shift } from '../records.js';
import { archiveEmployee, deleteShift, unarchiveEmployee } from '../use-cases.js';
import {
  aJobReference,
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  newGuid,
  seedRecords,
} from './builders.js';

/** Options of {@link describeStoreConformance}. */
export interface StoreConformanceOptions {
  /** Per-test timeout in milliseconds. @default 20000 */
  readonly timeout?: number;
  /** How many concurrent callers the race tests start. @default 8 */
  readonly concurrency?: number;
}

const byGuid = (guid: Guid) => ({ kind: 'guid', guid }) as const;
const byExternalId = (externalId: string) =>
  ({ kind: 'externalId', externalId: externalId as ExternalId }) as const;

const fixedClock: Clock = { now: () => new Date('2026-03-01T12:00:00.000Z') };
const randomIds: IdSource = { newId: () => globalThis.crypto.randomUUID() };

function anEvent(
  record: Employee | Shift,
  type: 'EmployeeArchived' | 'ShiftDeleted',
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

/**
 * The suite every store must pass: reads scoped to their restaurant, lookups by GUID and by
 * external id, compare-and-set (a stale version is refused and changes nothing), events stored
 * with their change, seeding (into an empty store only), the use cases racing over the store, and
 * closing. Call it at the top level of a vitest test file.
 *
 * @param name - the store's name in the test report
 * @param makeStore - returns a new, empty store; the suite closes it after each test
 * @example
 * ```ts
 * import { describeStoreConformance } from '@workforce-kit/core/testing';
 * describeStoreConformance('my store', async () => createMyStore(await freshDatabase()));
 * ```
 */
export function describeStoreConformance(
  name: string,
  makeStore: () => WorkforceStore | Promise<WorkforceStore>,
  options: StoreConformanceOptions = {},
): void {
  const timeout = options.timeout ?? 20_000;
  const concurrency = options.concurrency ?? 8;

  describe(`store conformance: ${name}`, { timeout }, () => {
    let store: WorkforceStore;
    const restaurantA = aRestaurant();
    const restaurantB = aRestaurant();
    const archivedRestaurant = aRestaurant({
      general: { name: 'Closed for good', archived: true },
    });

    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    const seedOf = (parts: Parameters<typeof seedRecords>[0]) =>
      seedRecords({ restaurants: [restaurantA, restaurantB, archivedRestaurant], ...parts });

    async function seeded(parts: Parameters<typeof seedRecords>[0]): Promise<void> {
      const outcome = await store.seed(seedOf(parts));
      expect(outcome._unsafeUnwrap()).toEqual({ seeded: true });
    }

    describe('seeding', () => {
      it('loads every record of a seed into an empty store', async () => {
        const employee = anEmployee(restaurantA.guid);
        const archived = anArchivedEmployee(restaurantA.guid);
        const shift = aShift(restaurantB.guid, { externalId: 'SCHEDULER:1' as ExternalId });
        await seeded({
          employees: [employee, archived],
          shifts: [shift],
        });

        expect((await store.restaurants.findByGuid(restaurantA.guid))._unsafeUnwrap()).toEqual(
          restaurantA,
        );
        expect(
          (await store.restaurants.findByGuid(archivedRestaurant.guid))._unsafeUnwrap(),
        ).toEqual(archivedRestaurant);
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(employee.guid)))._unsafeUnwrap(),
        ).toEqual(employee);
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(archived.guid)))._unsafeUnwrap(),
        ).toEqual(archived);
        expect(
          (
            await store.shifts.find(restaurantB.guid, { kind: 'guid', guid: shift.guid })
          )._unsafeUnwrap(),
        ).toEqual(shift);
        expect((await store.events.list())._unsafeUnwrap()).toEqual([]);
      });

      it('leaves a store that holds data unchanged, so seeding twice changes nothing', async () => {
        const first = anEmployee(restaurantA.guid);
        await seeded({ employees: [first] });
        const second = anEmployee(restaurantA.guid);
        const changedFirst = { ...first, firstName: 'Changed' };
        const outcome = await store.seed(seedOf({ employees: [changedFirst, second] }));

        expect(outcome._unsafeUnwrap()).toEqual({ seeded: false });
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(first.guid)))._unsafeUnwrap(),
        ).toEqual(first);
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(second.guid)))._unsafeUnwrap(),
        ).toBeNull();
      });

      it('accepts an empty seed', async () => {
        expect((await store.seed(seedRecords()))._unsafeUnwrap()).toEqual({ seeded: true });
      });
    });

    describe('reads', () => {
      it('find an employee by GUID in its own restaurant only', async () => {
        const employee = anEmployee(restaurantA.guid);
        await seeded({ employees: [employee] });

        expect(
          (await store.employees.find(restaurantA.guid, byGuid(employee.guid)))._unsafeUnwrap()
            ?.guid,
        ).toBe(employee.guid);
        expect(
          (await store.employees.find(restaurantB.guid, byGuid(employee.guid)))._unsafeUnwrap(),
        ).toBeNull();
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(newGuid())))._unsafeUnwrap(),
        ).toBeNull();
      });

      it('find an employee by external id in its own restaurant only', async () => {
        const employee = anEmployee(restaurantA.guid, {
          externalId: 'PAYROLL:10042' as ExternalId,
        });
        await seeded({ employees: [employee] });

        expect(
          (
            await store.employees.find(restaurantA.guid, byExternalId('PAYROLL:10042'))
          )._unsafeUnwrap(),
        ).toEqual(employee);
        expect(
          (
            await store.employees.find(restaurantB.guid, byExternalId('PAYROLL:10042'))
          )._unsafeUnwrap(),
        ).toBeNull();
        expect(
          (
            await store.employees.find(restaurantA.guid, byExternalId('payroll:10042'))
          )._unsafeUnwrap(),
        ).toBeNull();
      });

      it('find a shift by GUID and by external id in its own restaurant only', async () => {
        const shift = aShift(restaurantA.guid, { externalId: 'SCHEDULER:shift-7' as ExternalId });
        await seeded({ shifts: [shift] });
        const byGuid = { kind: 'guid', guid: shift.guid } as const;
        const byExternalId = {
          kind: 'externalId',
          externalId: 'SCHEDULER:shift-7' as ExternalId,
        } as const;

        expect((await store.shifts.find(restaurantA.guid, byGuid))._unsafeUnwrap()).toEqual(shift);
        expect((await store.shifts.find(restaurantA.guid, byExternalId))._unsafeUnwrap()).toEqual(
          shift,
        );
        expect((await store.shifts.find(restaurantB.guid, byGuid))._unsafeUnwrap()).toBeNull();
        expect(
          (await store.shifts.find(restaurantB.guid, byExternalId))._unsafeUnwrap(),
        ).toBeNull();
      });

      it('match external ids exactly (they are case-sensitive)', async () => {
        const shift = aShift(restaurantA.guid, { externalId: 'SCHEDULER:Shift-7' as ExternalId });
        await seeded({ shifts: [shift] });
        const lowerCase = {
          kind: 'externalId',
          externalId: 'scheduler:shift-7' as ExternalId,
        } as const;
        expect((await store.shifts.find(restaurantA.guid, lowerCase))._unsafeUnwrap()).toBeNull();
      });

      it('keep external ids unique per restaurant, not across restaurants', async () => {
        const externalId = 'POS:1' as ExternalId;
        const inA = aShift(restaurantA.guid, { externalId });
        const inB = aShift(restaurantB.guid, { externalId });
        await seeded({ shifts: [inA, inB] });
        const id = { kind: 'externalId', externalId } as const;

        expect((await store.shifts.find(restaurantA.guid, id))._unsafeUnwrap()?.guid).toBe(
          inA.guid,
        );
        expect((await store.shifts.find(restaurantB.guid, id))._unsafeUnwrap()?.guid).toBe(
          inB.guid,
        );
      });

      it('find restaurants by GUID, archived or not, and null for unknown ones', async () => {
        await seeded({});
        expect((await store.restaurants.findByGuid(restaurantB.guid))._unsafeUnwrap()).toEqual(
          restaurantB,
        );
        expect(
          (await store.restaurants.findByGuid(archivedRestaurant.guid))._unsafeUnwrap()?.general
            .archived,
        ).toBe(true);
        expect((await store.restaurants.findByGuid(newGuid()))._unsafeUnwrap()).toBeNull();
      });
    });

    describe('compare-and-set writes', () => {
      it('store the record at the next version, with its events', async () => {
        const employee = anEmployee(restaurantA.guid);
        await seeded({ employees: [employee] });
        const next = { ...employee, firstName: 'Mari' };
        const event = anEvent(employee, 'EmployeeArchived');

        const written = await store.employees.write({
          record: next,
          expectedVersion: 1,
          events: [event],
        });

        expect(written._unsafeUnwrap()).toEqual({ ...next, version: 2 });
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(employee.guid)))._unsafeUnwrap(),
        ).toEqual({
          ...next,
          version: 2,
        });
        expect((await store.events.list())._unsafeUnwrap()).toEqual([event]);
      });

      it('leave the objects they are given as they were: not frozen, and not kept', async () => {
        const employee = anEmployee(restaurantA.guid);
        await seeded({ employees: [employee] });
        const jobs = [aJobReference()];
        const next: Employee = { ...employee, jobReferences: jobs };
        const event = anEvent(employee, 'EmployeeArchived');

        await store.employees.write({ record: next, expectedVersion: 1, events: [event] });
        jobs.push(aJobReference());

        expect(
          [employee, next, jobs, jobs[0], event].map((given) => Object.isFrozen(given)),
        ).toEqual([false, false, false, false, false]);
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(employee.guid)))._unsafeUnwrap(),
        ).toEqual({ ...employee, jobReferences: jobs.slice(0, 1), version: 2 });
      });

      it('refuse a stale version and change nothing, events included', async () => {
        const shift = aShift(restaurantA.guid);
        await seeded({ shifts: [shift] });
        await store.shifts.write({
          record: shift,
          expectedVersion: 1,
          events: [anEvent(shift, 'ShiftDeleted')],
        });
        const before = (await store.events.list())._unsafeUnwrap();

        const stale = await store.shifts.write({
          record: { ...shift, deleted: true, deletedDate: '2026-03-01T12:00:00.000Z' },
          expectedVersion: 1,
          events: [anEvent(shift, 'ShiftDeleted')],
        });

        expect(stale._unsafeUnwrapErr()).toMatchObject({
          type: 'VersionConflict',
          guid: shift.guid,
          expectedVersion: 1,
        });
        expect(
          (
            await store.shifts.find(restaurantA.guid, { kind: 'guid', guid: shift.guid })
          )._unsafeUnwrap(),
        ).toEqual({
          ...shift,
          version: 2,
        });
        expect((await store.events.list())._unsafeUnwrap()).toEqual(before);
      });

      it('refuse a write for a record that is not there, or that belongs to another restaurant', async () => {
        const employee = anEmployee(restaurantA.guid);
        await seeded({ employees: [employee] });

        const missing = await store.employees.write({
          record: anEmployee(restaurantA.guid),
          expectedVersion: 1,
          events: [],
        });
        const otherRestaurant = await store.employees.write({
          record: { ...employee, restaurantGuid: restaurantB.guid, firstName: 'Intruder' },
          expectedVersion: 1,
          events: [],
        });

        expect(missing._unsafeUnwrapErr().type).toBe('VersionConflict');
        expect(otherRestaurant._unsafeUnwrapErr().type).toBe('VersionConflict');
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(employee.guid)))._unsafeUnwrap(),
        ).toEqual(employee);
        expect(
          (await store.employees.find(restaurantB.guid, byGuid(employee.guid)))._unsafeUnwrap(),
        ).toBeNull();
      });

      it('refuse a write that changes the external id, and change nothing', async () => {
        const shift = aShift(restaurantA.guid, { externalId: 'SCHEDULER:own' as ExternalId });
        await seeded({ shifts: [shift] });

        const renamed = await store.shifts.write({
          record: { ...shift, externalId: 'SCHEDULER:other' as ExternalId },
          expectedVersion: 1,
          events: [anEvent(shift, 'ShiftDeleted')],
        });

        expect(renamed._unsafeUnwrapErr()).toEqual({
          type: 'IdentityChangeRefused',
          guid: shift.guid,
        });
        const byOldId = { kind: 'externalId', externalId: 'SCHEDULER:own' as ExternalId } as const;
        const byNewId = {
          kind: 'externalId',
          externalId: 'SCHEDULER:other' as ExternalId,
        } as const;
        expect((await store.shifts.find(restaurantA.guid, byOldId))._unsafeUnwrap()).toEqual(shift);
        expect((await store.shifts.find(restaurantA.guid, byNewId))._unsafeUnwrap()).toBeNull();
        expect((await store.events.list())._unsafeUnwrap()).toEqual([]);
      });

      it(`let exactly one of ${concurrency} concurrent writes at one version win`, async () => {
        const shift = aShift(restaurantA.guid);
        await seeded({ shifts: [shift] });
        const results = await Promise.all(
          Array.from({ length: concurrency }, (_, i) =>
            store.shifts.write({
              record: { ...shift, outDate: `2026-03-02T0${i % 10}:00:00.000Z` },
              expectedVersion: 1,
              events: [anEvent(shift, 'ShiftDeleted')],
            }),
          ),
        );

        const winners = results.filter((result) => result.isOk());
        expect(winners).toHaveLength(1);
        expect(
          results.filter((result) => result.isErr() && result.error.type === 'VersionConflict'),
        ).toHaveLength(concurrency - 1);
        const stored = (
          await store.shifts.find(restaurantA.guid, { kind: 'guid', guid: shift.guid })
        )._unsafeUnwrap();
        expect(stored).toEqual(winners[0]?._unsafeUnwrap());
        expect((await store.events.list())._unsafeUnwrap()).toHaveLength(1);
      });

      it(`give each of many changes at once its own outcome, ${concurrency} to one record`, async () => {
        // Many changes in flight together, as a store that commits in groups would batch them:
        // records written once, a record raced by several writers, a missing record, a refused
        // change of identity. Each gets the outcome it would get alone.
        const alone = Array.from({ length: 3 * concurrency }, () => aShift(restaurantA.guid));
        const raced = aShift(restaurantB.guid);
        const renamed = aShift(restaurantA.guid, { externalId: 'SCHEDULER:keep' as ExternalId });
        await seeded({ shifts: [...alone, raced, renamed] });
        const writeOf = (shift: Shift, outDate = '2026-03-02T08:00:00.000Z') => {
          const event = anEvent(shift, 'ShiftDeleted');
          return {
            event,
            result: store.shifts.write({
              record: { ...shift, outDate },
              expectedVersion: 1,
              events: [event],
            }),
          };
        };
        const writes = [
          ...alone.map((shift) => writeOf(shift)),
          ...Array.from({ length: concurrency }, (_, i) =>
            writeOf(raced, `2026-03-02T0${i % 10}:00:00.000Z`),
          ),
          writeOf(aShift(restaurantA.guid)),
          {
            event: undefined,
            result: store.shifts.write({
              record: { ...renamed, externalId: 'SCHEDULER:other' as ExternalId },
              expectedVersion: 1,
              events: [anEvent(renamed, 'ShiftDeleted')],
            }),
          },
        ];
        const results = await Promise.all(writes.map((write) => write.result));

        const ofAlone = results.slice(0, alone.length);
        const ofRaced = results.slice(alone.length, alone.length + concurrency);
        const [ofMissing, ofRenamed] = results.slice(alone.length + concurrency);
        ofAlone.forEach((result, i) => {
          expect(result._unsafeUnwrap()).toEqual({
            ...alone[i],
            outDate: '2026-03-02T08:00:00.000Z',
            version: 2,
          });
        });
        expect(ofRaced.filter((result) => result.isOk())).toHaveLength(1);
        expect(ofRaced.filter((result) => result.isErr())).toHaveLength(concurrency - 1);
        for (const result of ofRaced.filter((result) => result.isErr())) {
          expect(result._unsafeUnwrapErr()).toMatchObject({
            type: 'VersionConflict',
            guid: raced.guid,
          });
        }
        expect(ofMissing?._unsafeUnwrapErr().type).toBe('VersionConflict');
        expect(ofRenamed?._unsafeUnwrapErr()).toEqual({
          type: 'IdentityChangeRefused',
          guid: renamed.guid,
        });

        for (const shift of [...alone, raced]) {
          const stored = (
            await store.shifts.find(shift.restaurantGuid, byGuid(shift.guid))
          )._unsafeUnwrap();
          expect(stored?.version).toBe(2);
        }
        const winner = ofRaced.find((result) => result.isOk())?._unsafeUnwrap();
        expect(
          (await store.shifts.find(restaurantB.guid, byGuid(raced.guid)))._unsafeUnwrap(),
        ).toEqual(winner);
        expect(
          (await store.shifts.find(restaurantA.guid, byGuid(renamed.guid)))._unsafeUnwrap(),
        ).toEqual(renamed);
        // The events of the changes written, and only theirs, each once.
        const written = writes.filter((_, i) => results[i]?.isOk()).map((write) => write.event);
        const events = (await store.events.list())._unsafeUnwrap();
        expect(events).toHaveLength(written.length);
        expect(new Set(events.map((event) => event.eventId))).toEqual(
          new Set(written.map((event) => event?.eventId)),
        );
      });

      it('apply successive changes of records, made while others are in flight, in their order', async () => {
        // Each chain changes its record three times, each change on the version the last one
        // stored; the chains run together, so their changes share the store's batches.
        const employees = Array.from({ length: concurrency }, () => anEmployee(restaurantA.guid));
        await seeded({ employees });
        const chain = async (employee: Employee) => {
          const events: RecordedEvent[] = [];
          let current = employee;
          for (const firstName of ['One', 'Two', 'Three']) {
            const event = anEvent(current, 'EmployeeArchived');
            events.push(event);
            current = (
              await store.employees.write({
                record: { ...current, firstName },
                expectedVersion: current.version,
                events: [event],
              })
            )._unsafeUnwrap();
          }
          return { current, events };
        };
        const chains = await Promise.all(employees.map(chain));

        const stored = (await store.events.list())._unsafeUnwrap();
        expect(stored).toHaveLength(3 * concurrency);
        for (const { current, events } of chains) {
          expect(current).toMatchObject({ firstName: 'Three', version: 4 });
          expect(
            (await store.employees.find(restaurantA.guid, byGuid(current.guid)))._unsafeUnwrap(),
          ).toEqual(current);
          // A record's events in the outbox in the order of its changes.
          expect(
            stored.filter(
              (event) => event.type === 'EmployeeArchived' && event.employeeGuid === current.guid,
            ),
          ).toEqual(events);
        }
      });

      it('list events oldest first, and by restaurant', async () => {
        const inA = anEmployee(restaurantA.guid);
        const inB = aShift(restaurantB.guid);
        await seeded({ employees: [inA], shifts: [inB] });
        const first = anEvent(inA, 'EmployeeArchived');
        const second = anEvent(inB, 'ShiftDeleted');
        await store.employees.write({ record: inA, expectedVersion: 1, events: [first] });
        await store.shifts.write({ record: inB, expectedVersion: 1, events: [second] });

        expect((await store.events.list())._unsafeUnwrap()).toEqual([first, second]);
        expect((await store.events.list(restaurantA.guid))._unsafeUnwrap()).toEqual([first]);
        expect((await store.events.list(restaurantB.guid))._unsafeUnwrap()).toEqual([second]);
      });
    });

    describe('the use cases over this store', () => {
      const deps = () => ({
        employees: store.employees,
        shifts: store.shifts,
        clock: fixedClock,
        ids: randomIds,
      });

      it(`let exactly one of ${concurrency} concurrent unarchives succeed, with one event`, async () => {
        const employee = anArchivedEmployee(restaurantA.guid);
        await seeded({ employees: [employee] });
        const results = await Promise.all(
          Array.from({ length: concurrency }, (_, i) =>
            unarchiveEmployee(deps(), {
              restaurant: restaurantA.guid,
              employee: employee.guid,
              requestId: `req-${i}`,
            }),
          ),
        );

        expect(results.filter((result) => result.isOk())).toHaveLength(1);
        expect(
          results.filter((result) => result.isErr() && result.error.type === 'EmployeeNotArchived'),
        ).toHaveLength(concurrency - 1);
        const stored = (
          await store.employees.find(restaurantA.guid, byGuid(employee.guid))
        )._unsafeUnwrap();
        expect(stored).toMatchObject({ deleted: false, version: 2 });
        expect(stored?.deletedDate).toBeUndefined();
        const events = (await store.events.list())._unsafeUnwrap();
        expect(events).toHaveLength(1);
        expect(events[0]).toMatchObject({
          type: 'EmployeeUnarchived',
          employeeGuid: employee.guid,
        });
      });

      it(`let all of ${concurrency} concurrent deletes of one shift succeed, with one change and one event`, async () => {
        const shift = aShift(restaurantA.guid, { externalId: 'SCHEDULER:race' as ExternalId });
        await seeded({ shifts: [shift] });
        const results = await Promise.all(
          Array.from({ length: concurrency }, (_, i) =>
            deleteShift(deps(), {
              restaurant: restaurantA.guid,
              shift: i % 2 === 0 ? byGuid(shift.guid) : byExternalId('SCHEDULER:race'),
              requestId: `req-${i}`,
            }),
          ),
        );

        expect(results.every((result) => result.isOk())).toBe(true);
        expect(results.flatMap((result) => result._unsafeUnwrap().events)).toHaveLength(1);
        const stored = (
          await store.shifts.find(restaurantA.guid, { kind: 'guid', guid: shift.guid })
        )._unsafeUnwrap();
        expect(stored).toMatchObject({ deleted: true, version: 2 });
        expect((await store.events.list())._unsafeUnwrap()).toHaveLength(1);
      });

      it(`let all of ${concurrency} concurrent archives of one employee succeed, with one change and one event`, async () => {
        const employee = anEmployee(restaurantA.guid, { externalId: 'PAYROLL:race' as ExternalId });
        await seeded({ employees: [employee] });
        const results = await Promise.all(
          Array.from({ length: concurrency }, (_, i) =>
            archiveEmployee(deps(), {
              restaurant: restaurantA.guid,
              employee: i % 2 === 0 ? byGuid(employee.guid) : byExternalId('PAYROLL:race'),
              requestId: `req-${i}`,
            }),
          ),
        );

        expect(results.every((result) => result.isOk())).toBe(true);
        expect(results.flatMap((result) => result._unsafeUnwrap().events)).toHaveLength(1);
        const stored = (
          await store.employees.find(restaurantA.guid, byGuid(employee.guid))
        )._unsafeUnwrap();
        expect(stored).toMatchObject({ deleted: true, version: 2 });
        for (const result of results) expect(result._unsafeUnwrap().record).toEqual(stored);
        expect((await store.events.list())._unsafeUnwrap()).toHaveLength(1);
      });

      it('give each of many use cases at once its own answer, some on the same record', async () => {
        const archived = Array.from({ length: concurrency }, () =>
          anArchivedEmployee(restaurantA.guid),
        );
        const active = Array.from({ length: concurrency }, () => anEmployee(restaurantB.guid));
        const shifts = Array.from({ length: concurrency }, (_, i) =>
          aShift(restaurantA.guid, { externalId: `SCHEDULER:many-${i}` as ExternalId }),
        );
        await seeded({ employees: [...archived, ...active], shifts });
        const requestId = (what: string, i: number) => `req-${what}-${i}`;
        const [unarchives, archives, deletes] = await Promise.all([
          // Each archived employee unarchived twice: one succeeds, the other finds it unarchived.
          Promise.all(
            [...archived, ...archived].map((employee, i) =>
              unarchiveEmployee(deps(), {
                restaurant: restaurantA.guid,
                employee: employee.guid,
                requestId: requestId('unarchive', i),
              }),
            ),
          ),
          Promise.all(
            active.map((employee, i) =>
              archiveEmployee(deps(), {
                restaurant: restaurantB.guid,
                employee: byGuid(employee.guid),
                requestId: requestId('archive', i),
              }),
            ),
          ),
          // Each shift deleted by GUID and by external id at once: both succeed, one changes it.
          Promise.all(
            shifts.flatMap((shift, i) => [
              deleteShift(deps(), {
                restaurant: restaurantA.guid,
                shift: byGuid(shift.guid),
                requestId: requestId('delete', 2 * i),
              }),
              deleteShift(deps(), {
                restaurant: restaurantA.guid,
                shift: byExternalId(`SCHEDULER:many-${i}`),
                requestId: requestId('delete', 2 * i + 1),
              }),
            ]),
          ),
        ]);

        archived.forEach((employee, i) => {
          const pair = [unarchives[i], unarchives[i + concurrency]];
          const succeeded = pair.filter((result) => result?.isOk());
          expect(succeeded).toHaveLength(1);
          expect(succeeded[0]?._unsafeUnwrap().record).toMatchObject({
            guid: employee.guid,
            deleted: false,
            version: 2,
          });
          expect(pair.find((result) => result?.isErr())?._unsafeUnwrapErr().type).toBe(
            'EmployeeNotArchived',
          );
        });
        archives.forEach((result, i) => {
          expect(result._unsafeUnwrap().record).toMatchObject({
            guid: active[i]?.guid,
            deleted: true,
            version: 2,
          });
          expect(result._unsafeUnwrap().events).toHaveLength(1);
        });
        shifts.forEach((shift, i) => {
          const pair = [deletes[2 * i], deletes[2 * i + 1]].map((result) =>
            result?._unsafeUnwrap(),
          );
          expect(pair.map((committed) => committed?.record)).toEqual([
            expect.objectContaining({ guid: shift.guid, deleted: true, version: 2 }),
            expect.objectContaining({ guid: shift.guid, deleted: true, version: 2 }),
          ]);
          expect(pair.flatMap((committed) => committed?.events ?? [])).toHaveLength(1);
        });
        const answered = [...unarchives, ...archives, ...deletes].flatMap((result) =>
          result.isOk() ? result.value.events : [],
        );
        const events = (await store.events.list())._unsafeUnwrap();
        expect(events).toHaveLength(3 * concurrency);
        expect(new Set(events.map((event) => event.eventId))).toEqual(
          new Set(answered.map((event) => event.eventId)),
        );
      });

      it('archive an employee of one restaurant through no other restaurant', async () => {
        const employee = anEmployee(restaurantA.guid);
        await seeded({ employees: [employee] });
        const result = await archiveEmployee(deps(), {
          restaurant: restaurantB.guid,
          employee: byGuid(employee.guid),
          requestId: 'req-cross',
        });

        expect(result._unsafeUnwrapErr().type).toBe('EmployeeNotFound');
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(employee.guid)))._unsafeUnwrap(),
        ).toEqual(employee);
        expect((await store.events.list())._unsafeUnwrap()).toEqual([]);
      });

      it('archive by external id within the context restaurant only', async () => {
        const externalId = 'PAYROLL:7';
        const inA = anEmployee(restaurantA.guid, { externalId: externalId as ExternalId });
        const inB = anEmployee(restaurantB.guid, { externalId: externalId as ExternalId });
        await seeded({ employees: [inA, inB] });
        const result = await archiveEmployee(deps(), {
          restaurant: restaurantB.guid,
          employee: byExternalId(externalId),
          requestId: 'req-external',
        });

        expect(result._unsafeUnwrap().record).toMatchObject({ guid: inB.guid, deleted: true });
        expect(
          (await store.employees.find(restaurantA.guid, byGuid(inA.guid)))._unsafeUnwrap(),
        ).toEqual(inA);
      });
    });

    describe('lifecycle', () => {
      it('answer ping while open', async () => {
        expect((await store.ping()).isOk()).toBe(true);
      });

      it('fail calls after close with StorageUnavailable rather than throwing', async () => {
        await store.close();
        const found = await store.restaurants.findByGuid(restaurantA.guid as Guid);
        expect(found._unsafeUnwrapErr().type).toBe('StorageUnavailable');
        expect((await store.ping())._unsafeUnwrapErr().type).toBe('StorageUnavailable');
      });
    });
  });
}
