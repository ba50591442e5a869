// A case's history checked as a whole: split by record (a call by GUID and one by external id of
// the same record go together, calls on other records do not constrain it), and a failure
// explained in the domain's words by the race report, with the calls that cannot be ordered marked.
import { describe, expect, it } from 'vitest';
import {
  checkHistory,
  type HistoryCall,
  type RacePhase,
  type RaceRecord,
} from '../src/concurrent-history.js';
import { raceReport } from '../src/race-report.js';
import {
  ANY_RECORD_STATES,
  type ChangeAnswer,
  type ChangeKind,
  type RecordModelState,
} from '../src/record-model.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

const MARIA: RaceRecord = {
  kind: 'employee',
  guid: '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d',
  externalId: 'PAYROLL:10042',
};
const MARIA_NAME = 'employee 6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d (PAYROLL:10042)';
const SHIFT: RaceRecord = {
  kind: 'shift',
  guid: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b',
  externalId: 'SCHEDULER:shift-20260301-0042',
};
const SHIFT_NAME = 'shift 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b (SCHEDULER:shift-20260301-0042)';
const START: Record<string, RecordModelState> = {
  [MARIA.guid]: {
    deleted: true,
    createdDate: { value: iso(-1e9) },
    modifiedDate: { value: iso(-1000) },
    deletedDate: { value: iso(-1000) },
  },
  [SHIFT.guid]: {
    deleted: false,
    createdDate: { value: iso(-1e9) },
    modifiedDate: { value: iso(-1000) },
    deletedDate: undefined,
  },
};

const ok = (deleted: boolean, at: number): ChangeAnswer => ({
  status: 200,
  deleted,
  createdDate: iso(-1e9),
  modifiedDate: iso(at),
  ...(deleted ? { deletedDate: iso(at) } : {}),
});

function call(
  record: RaceRecord,
  kind: ChangeKind,
  where: [RacePhase, number],
  from: number,
  to: number,
  answer: ChangeAnswer,
  byExternalId = false,
): HistoryCall {
  return {
    phase: where[0],
    lane: where[1],
    record,
    kind,
    byExternalId,
    invokedAt: from,
    completedAt: to,
    determinate: true,
    answer,
    noAnswer: undefined,
    earliest: T0 + from - 1000,
  };
}
const A: [RacePhase, number] = ['branch', 1];
const B: [RacePhase, number] = ['branch', 2];
const SUFFIX: [RacePhase, number] = ['suffix', 0];
const start = (record: RaceRecord) => [START[record.guid] as RecordModelState];

/** The history checked and, when no order fits, the race report's words for why. */
function checked(
  calls: readonly HistoryCall[],
  from: (record: RaceRecord) => readonly RecordModelState[] = start,
) {
  const verdict = checkHistory(calls, from);
  if (verdict.kind !== 'not-linearizable') return verdict;
  const requests = calls.map((c) => ({ method: 'PUT', path: `/${c.record.guid}`, headers: {} }));
  const { summary, detail } = raceReport(calls, requests, verdict);
  return { ...verdict, summary, detail };
}

describe('checkHistory', () => {
  it('names two unarchives that both answered 200', () => {
    const verdict = checked(
      [
        call(MARIA, 'unarchive', A, 0, 10, ok(false, 2)),
        call(MARIA, 'unarchive', B, 1, 11, ok(false, 3)),
        call(MARIA, 'archive', SUFFIX, 20, 30, ok(true, 25)),
      ],
      start,
    );
    expect(verdict).toMatchObject({
      kind: 'not-linearizable',
      record: MARIA,
      race: { kind: 'unarchived-twice', calls: [0, 1] },
      summary: `two unarchives of ${MARIA_NAME}, #1 unarchive (branch A) and #2 unarchive (branch B), both answered 200: in any order, the second finds the employee not archived and must answer 400 EMPLOYEE_NOT_ARCHIVED`,
      marked: [0, 1],
    });
    if (verdict.kind !== 'not-linearizable') return;
    expect(verdict.detail).toMatch(
      /^The furthest order found is #[12] unarchive \(branch [AB]\); after it the employee is not archived \(modifiedDate .*\), and no call can come next: #[12] unarchive \(branch [AB]\) finds the employee not archived .*: must answer 400 EMPLOYEE_NOT_ARCHIVED; answered 200 deleted false, .*\.$/,
    );
  });

  it('names two deletes of one shift, by GUID and by external id, with different dates', () => {
    const verdict = checked(
      [
        call(SHIFT, 'delete', A, 0, 10, ok(true, 2)),
        call(SHIFT, 'delete', B, 1, 11, ok(true, 3), true),
      ],
      start,
    );
    expect(verdict).toMatchObject({
      kind: 'not-linearizable',
      race: { kind: 'deleted-dates-differ', calls: [0, 1] },
      summary: `two deletes of ${SHIFT_NAME}, #1 delete by GUID (branch A) and #2 delete by external id (branch B), answered different deletedDates, ${iso(2)} and ${iso(3)}: in any order, the second finds the shift deleted and must answer its deletedDate unchanged`,
      marked: [0, 1],
    });
  });

  it('names a lost archive, and explains it from the furthest order found', () => {
    const active = {
      ...(START[MARIA.guid] as RecordModelState),
      deleted: false,
      deletedDate: undefined,
    };
    const notArchived = { status: 400, code: 'EMPLOYEE_NOT_ARCHIVED' };
    const verdict = checked(
      [
        call(MARIA, 'archive', A, 0, 10, ok(true, 4)),
        call(MARIA, 'unarchive', B, 1, 11, notArchived),
        call(MARIA, 'unarchive', SUFFIX, 20, 30, notArchived),
      ],
      () => [active],
    );
    expect(verdict).toMatchObject({
      kind: 'not-linearizable',
      race: { kind: 'change-lost', calls: [0, 2] },
      summary: `#1 archive by GUID (branch A) answered 200 with ${MARIA_NAME} archived, but #3 unarchive (suffix), sent after that answer, found it not archived (400 EMPLOYEE_NOT_ARCHIVED), and no unarchive that could come between them changed it: the archive was lost`,
      marked: [0, 2],
    });
    if (verdict.kind !== 'not-linearizable') return;
    expect(verdict.detail).toBe(
      `The furthest order found is #2 unarchive (branch B), #1 archive by GUID (branch A); after it the employee is archived (modifiedDate ${iso(4)}, deletedDate ${iso(4)}), and no call can come next: #3 unarchive (suffix) finds the employee archived (modifiedDate ${iso(4)}, deletedDate ${iso(4)}): must answer 200 with the employee unarchived; answered 400 EMPLOYEE_NOT_ARCHIVED.`,
    );
  });

  it('says which calls no order fits when the history shows no race it can name', () => {
    const verdict = checked(
      [
        call(MARIA, 'unarchive', A, 0, 10, ok(true, 2)),
        call(MARIA, 'archive', B, 1, 11, ok(true, 2)),
      ],
      start,
    );
    expect(verdict).toMatchObject({
      kind: 'not-linearizable',
      race: undefined,
      summary: `no order of the 2 calls on ${MARIA_NAME} gives the answers they got`,
      marked: [0, 1],
    });
    if (verdict.kind !== 'not-linearizable') return;
    expect(verdict.detail).toMatch(
      /no call can come next: #1 unarchive \(branch A\) finds the employee archived .*: must answer deleted false; answered 200 deleted true/,
    );
  });

  it('checks each record on its own, and gives the states each may end in and the changes', () => {
    // The shift's deletes overlap Maria's calls in time; only calls on one record constrain it.
    const calls = [
      call(MARIA, 'unarchive', A, 0, 10, ok(false, 2)),
      call(SHIFT, 'delete', B, 1, 11, ok(true, 3)),
      call(SHIFT, 'delete', A, 12, 20, ok(true, 3), true),
      call(MARIA, 'unarchive', B, 12, 20, { status: 400, code: 'EMPLOYEE_NOT_ARCHIVED' }),
    ];
    const verdict = checkHistory(calls, start, { finalStates: true });
    expect(verdict.kind).toBe('linearizable');
    if (verdict.kind !== 'linearizable') return;
    expect(verdict.finalStates.get(MARIA.guid)).toEqual([
      {
        ...START[MARIA.guid],
        deleted: false,
        modifiedDate: { value: iso(2) },
        deletedDate: undefined,
      },
    ]);
    expect(verdict.finalStates.get(SHIFT.guid)?.map((s) => s.deleted)).toEqual([true]);
    // Maria's unarchive and the first delete changed their records; the repeats did not.
    expect(verdict.changed).toEqual([0, 1]);
  });

  it('gives the states the model knows nothing of when its bound cut the final states short', () => {
    // Eight overlapping no-op archives: an order is found at once, every order takes hundreds.
    const calls = Array.from({ length: 8 }, (_, i) =>
      call(MARIA, 'archive', ['branch', i + 1], 0, 100, ok(true, -1000)),
    );
    const verdict = checkHistory(calls, start, { maxSteps: 20, finalStates: true });
    expect(verdict.kind).toBe('linearizable');
    if (verdict.kind !== 'linearizable') return;
    expect(verdict.finalStates.get(MARIA.guid)).toBe(ANY_RECORD_STATES);
    const whole = checkHistory(calls, start, { finalStates: true });
    expect(whole.kind === 'linearizable' && whole.finalStates.get(MARIA.guid)).toEqual([
      START[MARIA.guid],
    ]);
  });

  it('reports a history over its bound as undecided', () => {
    const calls = Array.from({ length: 8 }, (_, i) =>
      call(MARIA, 'archive', ['branch', i + 1], 0, 100, ok(true, -1000)),
    );
    expect(checkHistory(calls, start, { maxSteps: 3 })).toMatchObject({
      kind: 'undecided',
      record: MARIA,
    });
  });
});
