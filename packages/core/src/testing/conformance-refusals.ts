// Compare-and-set, checked directly on every write the use cases make: a write at a stale version,
// of a missing record, or of another restaurant's record is refused with VersionConflict, and
// changes neither the record nor the events.
import { describe, expect, it } from 'vitest';
import { archive, unarchive } from '../employee-machine.js';
import type { RecordedEvent } from '../events.js';
import type { ExternalId } from '../identifiers.js';
import type { WorkforceStore } from '../ports.js';
import type { Employee, Shift } from '../records.js';
import { markDeleted } from '../shift-machine.js';
import type { Transition } from '../transition.js';
import { anArchivedEmployee, anEmployee, aShift, newGuid } from './builders.js';
import {
  byExternalId,
  byGuid,
  expectEvents,
  expectNotFound,
  expectStored,
  externalId,
  fixedClock,
  type Kind,
  type RecordOf,
  write,
} from './conformance-calls.js';
import { expectErrorType, expectOk } from './conformance-failures.js';
import type { ConformanceContext } from './store-conformance.js';

/** A write a use case makes: the record it starts from, and the transition it writes. */
interface UseCaseWrite<K extends Kind> {
  readonly name: string;
  readonly kind: K;
  readonly before: (
    restaurantGuid: RecordOf<K>['restaurantGuid'],
    externalId: ExternalId,
  ) => RecordOf<K>;
  readonly transition: (record: RecordOf<K>, now: Date) => Transition<RecordOf<K>>;
}

const unarchived = (employee: Employee, now: Date): Transition<Employee> => {
  const next = unarchive(employee, now);
  if (next.isErr()) throw new Error(`unarchive refused the archived employee: ${next.error.type}`);
  return next.value;
};

const WRITES: readonly (UseCaseWrite<'employees'> | UseCaseWrite<'shifts'>)[] = [
  {
    name: 'an unarchive',
    kind: 'employees',
    before: (restaurantGuid, externalId) => anArchivedEmployee(restaurantGuid, { externalId }),
    transition: unarchived,
  },
  {
    name: 'an archive',
    kind: 'employees',
    before: (restaurantGuid, externalId) => anEmployee(restaurantGuid, { externalId }),
    transition: archive,
  },
  {
    name: 'a delete',
    kind: 'shifts',
    before: (restaurantGuid, externalId) => aShift(restaurantGuid, { externalId }),
    transition: markDeleted as (shift: Shift, now: Date) => Transition<Shift>,
  },
];

const recorded = (transition: Transition<Employee | Shift>): RecordedEvent[] =>
  transition.events.map((event) => ({ ...event, eventId: newGuid(), requestId: 'req-refused' }));

/** The refused writes of every use case's write, each a test of its own. */
export function describeRefusedWrites(ctx: ConformanceContext): void {
  for (const useCaseWrite of WRITES) describeRefusals(ctx, useCaseWrite);
}

function describeRefusals(
  ctx: ConformanceContext,
  useCaseWrite: UseCaseWrite<'employees'> | UseCaseWrite<'shifts'>,
): void {
  const { kind } = useCaseWrite;
  describe(`${kind}.write of ${useCaseWrite.name}`, () => {
    const setUp = async () => {
      const ownId = externalId(`REFUSALS:${newGuid()}`);
      const record = useCaseWrite.before(ctx.restaurantA.guid, ownId) as Employee & Shift;
      if (kind === 'employees') await ctx.seeded({ employees: [record] });
      else await ctx.seeded({ shifts: [record] });
      const transition = (
        useCaseWrite.transition as (r: Employee & Shift, now: Date) => Transition<Employee & Shift>
      )(record, fixedClock.now());
      return { store: ctx.store(), record, transition };
    };
    const expectRefused = (
      call: string,
      answer: Awaited<ReturnType<WorkforceStore['employees']['write']>>,
      guid: string,
      expectedVersion: number,
    ) => {
      const error = expectErrorType(call, answer, 'VersionConflict');
      expect(
        error,
        `${call}: the VersionConflict names the record and the version asked for`,
      ).toEqual({ type: 'VersionConflict', guid, expectedVersion });
    };

    it('at a stale version: VersionConflict, and nothing changed', async () => {
      const { store, record, transition } = await setUp();
      // Another writer's change first (the same fields, at version 1): the store is at version 2.
      expectOk(
        `${kind}.write at version 1`,
        await write(store, kind, { record, expectedVersion: 1, events: [] }),
      );
      for (const stale of [1, 3]) {
        const call = `${kind}.write of ${useCaseWrite.name} at version ${stale} (the store has version 2)`;
        const answer = await write(store, kind, {
          record: transition.record,
          expectedVersion: stale,
          events: recorded(transition),
        });
        expectRefused(call, answer, record.guid, stale);
      }
      await expectStored(
        store,
        kind,
        { ...record, version: 2 },
        'the record as it was before the refused writes',
      );
      await expectEvents(store, [], 'of refused writes: none');
    });

    it('of a missing record: VersionConflict, and nothing changed', async () => {
      const { store, record, transition } = await setUp();
      const missing = {
        ...transition.record,
        guid: newGuid(),
        externalId: externalId(`REFUSALS:${newGuid()}`),
      };
      const call = `${kind}.write of ${useCaseWrite.name} of a record never seeded, at version 1`;
      const answer = await write(store, kind, {
        record: missing,
        expectedVersion: 1,
        events: recorded(transition),
      });
      expectRefused(call, answer, missing.guid, 1);
      await expectNotFound(
        store,
        kind,
        ctx.restaurantA.guid,
        byGuid(missing.guid),
        'a refused write creates nothing',
      );
      await expectNotFound(
        store,
        kind,
        ctx.restaurantA.guid,
        byExternalId(missing.externalId),
        'a refused write creates nothing',
      );
      await expectStored(store, kind, record, 'the seeded record');
      await expectEvents(store, [], 'of refused writes: none');
    });

    it("of another restaurant's record: VersionConflict, and nothing changed", async () => {
      const { store, record, transition } = await setUp();
      const foreign = { ...transition.record, restaurantGuid: ctx.restaurantB.guid };
      const call = `${kind}.write of ${useCaseWrite.name} in restaurant ${ctx.restaurantB.guid} of restaurant ${ctx.restaurantA.guid}'s record, at version 1`;
      const answer = await write(store, kind, {
        record: foreign,
        expectedVersion: 1,
        events: recorded(transition),
      });
      expectRefused(call, answer, record.guid, 1);
      await expectStored(store, kind, record, 'the seeded record');
      for (const id of [byGuid(record.guid), byExternalId(String(record.externalId))]) {
        await expectNotFound(
          store,
          kind,
          ctx.restaurantB.guid,
          id,
          'a write in another restaurant creates nothing there',
        );
      }
      await expectEvents(store, [], 'of refused writes: none');
    });
  });
}
