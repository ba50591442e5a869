// The events of a concurrent case read as observations (case-events.ts), on histories written by
// hand (no HTTP): each way a case's events can be wrong named by its rule, in the domain's words,
// while the answers alone fit an order; and what a correct deployment's events make of the calls
// whose answers do not say whether they happened.
import { describe, expect, it } from 'vitest';
import { type CaseEvents, checkCaseEvents } from '../src/case-events.js';
import { checkHistory, type HistoryCall, type RaceRecord } from '../src/concurrent-history.js';
import { CoverageTally } from '../src/coverage.js';
import { EventLedger, type LedgerCall } from '../src/event-ledger.js';
import { createEventRecorder, type EventRecorder } from '../src/event-source.js';
import type { WireRequest } from '../src/http-client.js';
import { RaceViolation } from '../src/race-report.js';
import type { ChangeAnswer, ChangeKind, RecordModelState } from '../src/record-model.js';
import { readSpec } from '../src/spec-reader.js';
import { stateTableOperations } from '../src/state-table-operations.js';
import type { WorldRecord } from '../src/world.js';

const spec = readSpec();
const RESTAURANT = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const shift: RaceRecord = { kind: 'shift', guid: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b' };
const employee: RaceRecord = { kind: 'employee', guid: '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d' };
const worldRecord = (record: RaceRecord): WorldRecord => ({
  ...record,
  restaurant: RESTAURANT,
  fields: {},
  seedDeleted: false,
  seedDates: {},
});

const CREATED = '2024-02-12T14:03:11.000Z';
const BEFORE = '2026-03-01T10:00:00.000Z';
const AT = '2026-03-01T10:00:01.000Z';
const LATER = '2026-03-01T10:00:02.000Z';
const active: RecordModelState = {
  deleted: false,
  createdDate: { value: CREATED },
  modifiedDate: { value: BEFORE },
  deletedDate: undefined,
};

const deleted = (date: string): ChangeAnswer => ({
  status: 200,
  deleted: true,
  createdDate: CREATED,
  modifiedDate: date,
  deletedDate: date,
});

/** A call of the case: its record, kind, times (ms from the case's start) and answer. */
function call(
  record: RaceRecord,
  kind: ChangeKind,
  [invokedAt, completedAt]: [number, number | undefined],
  answer: ChangeAnswer | undefined,
  lane = 0,
): HistoryCall {
  const determinate = answer !== undefined && answer.status !== 503;
  return {
    phase: lane === 0 ? 'prefix' : 'branch',
    lane,
    record,
    kind,
    byExternalId: false,
    invokedAt,
    completedAt,
    determinate,
    answer,
    noAnswer: answer === undefined ? 'socket hang up' : undefined,
    earliest: 0,
  };
}

const ROLE = { unarchive: 'unarchive', archive: 'archive', delete: 'deleteShift' } as const;
const EVENT = {
  unarchive: 'EmployeeUnarchived',
  archive: 'EmployeeArchived',
  delete: 'ShiftDeleted',
} as const;

/** A case of `calls` on a fresh ledger; `emit(i)` records call `i`'s event, as its app would. */
function caseOf(calls: readonly HistoryCall[], start: RecordModelState = active) {
  const recorder: EventRecorder = createEventRecorder();
  const coverage = new CoverageTally(
    { restaurants: [], employees: [], shifts: [], byGuid: new Map() },
    stateTableOperations(spec),
  );
  const ledger = new EventLedger(recorder, { spec, coverage }, 100);
  ledger.startRun('concurrent.races');
  const entries: LedgerCall[] = calls.map((c, i) =>
    ledger.enter({
      requestId: `r${i}`,
      method: 'DELETE',
      path: `/${c.record.guid}`,
      status: c.answer?.status,
      record: worldRecord(c.record),
      role: ROLE[c.kind],
      expectation: 'pending',
      why: '',
      answered: undefined,
      sentAt: c.invokedAt,
      answeredAt: c.completedAt,
    }),
  );
  const requests: WireRequest[] = calls.map((c) => ({
    method: 'DELETE',
    path: `/${c.record.guid}`,
    headers: {},
  }));
  const events: CaseEvents = {
    calls,
    entries,
    requests,
    start: () => [start],
    finalStates: false,
    t0: 0,
  };
  const emit = (i: number) => {
    const c = calls[i] as HistoryCall;
    recorder.record({
      type: EVENT[c.kind],
      eventId: `e${i}-${entries[i]?.events.length}`,
      requestId: `r${i}`,
      restaurantGuid: RESTAURANT,
      ...(c.record.kind === 'shift'
        ? { shiftGuid: c.record.guid }
        : { employeeGuid: c.record.guid }),
    });
  };
  const check = async () => {
    const answers = checkHistory(calls, () => [start]);
    if (answers.kind !== 'linearizable') throw new Error('the answers alone must fit');
    return checkCaseEvents(ledger, coverage, events, answers);
  };
  return { emit, check, entries };
}

/** The failure a case's check throws. */
async function failure(check: () => Promise<unknown>): Promise<RaceViolation> {
  const error = await check().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof RaceViolation)) throw new Error(`not a race: ${String(error)}`);
  return error;
}

describe('the events of a concurrent case', () => {
  it('fit when each change emitted its event and nothing else did', async () => {
    const { emit, check, entries } = caseOf([
      call(shift, 'delete', [0, 2], deleted(AT), 1),
      call(shift, 'delete', [0, 3], deleted(AT), 2),
    ]);
    emit(1);
    expect((await check()).kind).toBe('linearizable');
    // The call whose event came changed the shift; the other may have, in another order.
    expect(entries.map((e) => e.expectation)).toEqual(['maybe', 'change']);
  });

  it('show a lost update whose answers agree: two overlapping deletes that each emitted shift.deleted', async () => {
    const { emit, check } = caseOf([
      call(shift, 'delete', [0, 2], deleted(AT), 1),
      call(shift, 'delete', [0, 3], deleted(AT), 2),
    ]);
    emit(0);
    emit(1);
    const race = await failure(check);
    expect(race.rule).toBe('linearizable');
    expect(race.race.summary).toContain('each emitted shift.deleted');
    expect(race.race.summary).toContain('the shift was deleted twice (a lost update)');
    expect(race.race.calls.map((c) => c.events?.map((e) => e.mark))).toEqual([
      ['delivered'],
      ['unexpected'],
    ]);
  });

  it('name an event for a no-op: a delete that came after the shift was deleted, and emitted', async () => {
    const { emit, check } = caseOf([
      call(shift, 'delete', [0, 2], deleted(AT)),
      call(shift, 'delete', [3, 4], deleted(AT)),
    ]);
    emit(0);
    emit(1);
    const race = await failure(check);
    expect(race.rule).toBe('no-event-without-change');
    expect(race.race.summary).toMatch(/^#2 delete by GUID \(prefix\) emitted shift.deleted, yet/);
  });

  it('name events in the wrong order: an archive’s before the unarchive’s it came after', async () => {
    const archived: RecordModelState = {
      deleted: true,
      createdDate: { value: CREATED },
      modifiedDate: { value: BEFORE },
      deletedDate: { value: BEFORE },
    };
    const unarchivedAt: ChangeAnswer = {
      status: 200,
      deleted: false,
      createdDate: CREATED,
      modifiedDate: AT,
    };
    const { emit, check } = caseOf(
      [
        call(employee, 'unarchive', [0, 2], unarchivedAt),
        call(employee, 'archive', [3, 4], deleted(LATER)),
      ],
      archived,
    );
    emit(1);
    emit(0);
    const race = await failure(check);
    expect(race.rule).toBe('event-order');
    expect(race.race.calls.flatMap((c) => c.events?.map((e) => e.mark))).toEqual([
      'out-of-order',
      'out-of-order',
    ]);
  });

  it('read a call whose answer does not say as having happened when its event came', async () => {
    const { emit, check, entries } = caseOf([
      call(shift, 'delete', [0, undefined], undefined, 1),
      call(shift, 'delete', [5, 6], deleted(AT)),
    ]);
    emit(0);
    expect((await check()).kind).toBe('linearizable');
    expect(entries.map((e) => [e.expectation, e.events.length])).toEqual([
      ['indeterminate', 1],
      ['maybe', 0],
    ]);
  });

  it('fail with a lost event when such a call must have happened and no event came', async () => {
    const { check } = caseOf([
      call(shift, 'delete', [0, 1], { status: 503, code: 'STORAGE_UNAVAILABLE' }, 1),
      call(shift, 'delete', [5, 6], deleted(AT)),
    ]);
    const race = await failure(check);
    expect(race.rule).toBe('events-delivered');
    expect(race.race.summary).toContain('a change without its event');
    expect(race.race.calls[0]?.events).toEqual([{ type: 'shift.deleted', mark: 'lost' }]);
  });
});
