// The model of one record's state tables, under the checker: the races the concurrent group looks
// for (two unarchives that both answered 200, two deletes of one shift with different dates, an
// archive lost to an unarchive), the histories a correct target gives (one change and a no-op, in
// either order), the dates (a no-op's exactly as they were, a change's at or after them and not
// before its request), and answers that do not say whether the change happened.
import { describe, expect, it } from 'vitest';
import { checkLinearizable, type TimedCall } from '../src/linearizability.js';
import {
  type ChangeAnswer,
  type ChangeKind,
  type RecordCall,
  type RecordModelState,
  recordModel,
  UNKNOWN_DATE,
} from '../src/record-model.js';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

const ARCHIVED: RecordModelState = {
  deleted: true,
  createdDate: { value: iso(-1e9) },
  modifiedDate: { value: iso(-1000) },
  deletedDate: { value: iso(-1000) },
};
const ACTIVE: RecordModelState = {
  deleted: false,
  createdDate: { value: iso(-1e9) },
  modifiedDate: { value: iso(-1000) },
  deletedDate: undefined,
};

/** A call of `kind` sent at `from` and answered at `to` (ms after T0), with `answer`. */
function call(
  kind: ChangeKind,
  from: number,
  to: number | undefined,
  answer?: ChangeAnswer,
): TimedCall<RecordCall> {
  return { call: { kind, answer, earliest: T0 + from - 1000 }, invokedAt: from, completedAt: to };
}

/** A 200 answer: the record with `deleted`, changed at `changedAt` (and, when deleted, deleted then). */
const record = (deleted: boolean, modified: number, deletedAt = modified): ChangeAnswer => ({
  status: 200,
  deleted,
  createdDate: iso(-1e9),
  modifiedDate: iso(modified),
  ...(deleted ? { deletedDate: iso(deletedAt) } : {}),
});
const notArchived: ChangeAnswer = { status: 400, code: 'EMPLOYEE_NOT_ARCHIVED' };

const employee = recordModel('employee');
const shift = recordModel('shift');

describe('the record model under the checker', () => {
  it('refuses two overlapping unarchives that both answered 200', () => {
    const verdict = checkLinearizable(
      employee,
      [ARCHIVED],
      [call('unarchive', 0, 10, record(false, 3)), call('unarchive', 1, 11, record(false, 4))],
    );
    expect(verdict.kind).toBe('not-linearizable');
    if (verdict.kind !== 'not-linearizable') return;
    expect(verdict.deepest).toHaveLength(1);
    const [first, second] = verdict.deepest[0] === 0 ? [3, 4] : [4, 3];
    expect(verdict.blocked[0]?.why).toBe(
      `finds the employee not archived (modifiedDate ${iso(first)}): must answer 400 EMPLOYEE_NOT_ARCHIVED; answered 200 deleted false, modifiedDate ${iso(second)}`,
    );
  });

  it('accepts one of them answering 400, whichever it is', () => {
    for (const [first, second] of [
      [record(false, 3), notArchived],
      [notArchived, record(false, 4)],
    ] as const) {
      const history = [call('unarchive', 0, 10, first), call('unarchive', 1, 11, second)];
      expect(checkLinearizable(employee, [ARCHIVED], history).kind).toBe('linearizable');
    }
  });

  it('refuses two deletes of one shift that answered different deletedDates', () => {
    const active = { ...ACTIVE };
    const same = [call('delete', 0, 10, record(true, 5)), call('delete', 1, 11, record(true, 5))];
    expect(checkLinearizable(shift, [active], same).kind).toBe('linearizable');
    const different = [
      call('delete', 0, 10, record(true, 5)),
      call('delete', 1, 11, record(true, 6)),
    ];
    const verdict = checkLinearizable(shift, [active], different);
    expect(verdict.kind).toBe('not-linearizable');
    if (verdict.kind !== 'not-linearizable') return;
    expect(verdict.blocked[0]?.why).toMatch(
      /^finds the shift deleted \(modifiedDate (\S+), deletedDate \1\): must answer it unchanged; answered 200 deleted true, modifiedDate (?!\1)/,
    );
  });

  it('refuses an archive that answered 200 and was lost to an overlapping unarchive', () => {
    // The archive and the unarchive overlap; a later unarchive finds the employee not archived.
    const history = [
      call('archive', 0, 10, record(true, 4)),
      call('unarchive', 1, 11, notArchived),
      call('unarchive', 20, 30, notArchived),
    ];
    expect(checkLinearizable(employee, [ACTIVE], history).kind).toBe('not-linearizable');
    // Had the overlapping unarchive answered 200, the archive came first and nothing was lost.
    history[1] = call('unarchive', 1, 11, record(false, 6));
    expect(checkLinearizable(employee, [ACTIVE], history).kind).toBe('linearizable');
  });

  it('holds a no-op to the dates exactly, and a change to dates at or after them', () => {
    const noOp = (answer: ChangeAnswer) =>
      checkLinearizable(employee, [ARCHIVED], [call('archive', 0, 10, answer)]).kind;
    expect(noOp(record(true, -1000))).toBe('linearizable');
    expect(noOp(record(true, -999))).toBe('not-linearizable');
    expect(noOp(record(true, -1000, -999))).toBe('not-linearizable');
    const change = (answer: ChangeAnswer) =>
      checkLinearizable(employee, [ACTIVE], [call('archive', 5000, 5010, answer)]).kind;
    expect(change(record(true, 5000))).toBe('linearizable');
    // Before the modifiedDate it finds:
    expect(change(record(true, -1001))).toBe('not-linearizable');
    // After it, but before the request was sent (less the second of tolerance):
    expect(change(record(true, 3000))).toBe('not-linearizable');
  });

  it('binds a date the state does not know to the first answer that shows it', () => {
    const unknown: RecordModelState = {
      ...ARCHIVED,
      modifiedDate: UNKNOWN_DATE,
      deletedDate: UNKNOWN_DATE,
    };
    const history = [
      call('archive', 0, 10, record(true, -500)),
      call('archive', 20, 30, record(true, -400)),
    ];
    const verdict = checkLinearizable(employee, [unknown], history);
    expect(verdict.kind).toBe('not-linearizable');
    if (verdict.kind !== 'not-linearizable') return;
    expect(verdict.state.modifiedDate).toEqual({ value: iso(-500) });
  });

  it('reads an answer that does not say whether the change happened as either', () => {
    // An unarchive that answered 503 after unarchiving, then one that finds it done.
    const unsure = call('unarchive', 0, undefined);
    const after = call('unarchive', 20, 30, notArchived);
    expect(checkLinearizable(employee, [ARCHIVED], [unsure, after]).kind).toBe('linearizable');
    // Read as an answer (it was no 200), the same history has no order.
    const refused = call('unarchive', 0, 10, { status: 503, code: 'STORAGE_UNAVAILABLE' });
    expect(checkLinearizable(employee, [ARCHIVED], [refused, after]).kind).toBe('not-linearizable');
    // It may also not have happened: an archive then finds the employee archived, its dates as before.
    const noOp = call('archive', 20, 30, record(true, -1000));
    expect(checkLinearizable(employee, [ARCHIVED], [unsure, noOp]).kind).toBe('linearizable');
    // The dates it set are unknown, not before it was sent: an answer binds them.
    const finals = checkLinearizable(employee, [ARCHIVED], [unsure], { finalStates: true });
    expect(finals.kind === 'linearizable' && finals.finalStates).toEqual([
      ARCHIVED,
      { ...ACTIVE, modifiedDate: { atLeast: T0 - 1000 } },
    ]);
    const change = (modified: number) =>
      checkLinearizable(
        employee,
        [ARCHIVED],
        [unsure, call('archive', 20, 30, record(true, modified))],
      ).kind;
    expect(change(100)).toBe('linearizable');
    expect(change(-1500)).toBe('not-linearizable');
  });
});
