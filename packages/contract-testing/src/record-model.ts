// The state tables of one record (an employee or a shift) as a sequential model for the
// linearizability checker: its state is whether it is archived (deleted) and its dates, and a call
// is an unarchive, an archive or a shift delete with the answer it got. A no-op answers the
// record's current dates exactly; a change sets new ones, at or after the modifiedDate before it
// and not before the request was sent (by the target's clock, see change-time.ts). The target's
// clock is unknown, so a date a change sets is part of the state: known once an answer shows it,
// and until then unknown, with the earliest it can be.
import type { ModelStep, SequentialModel } from './linearizability.js';
import { DATE_FIELDS } from './world.js';

/** A date of the model's state: known, or not known yet and not before `atLeast` (ms). */
export type DateSlot = { readonly value: string } | { readonly atLeast: number };

/** What the model knows of one record at one point of an order. */
export interface RecordModelState {
  readonly deleted: boolean;
  readonly createdDate: DateSlot;
  readonly modifiedDate: DateSlot;
  /** Present exactly when `deleted`. */
  readonly deletedDate: DateSlot | undefined;
}

/** The calls that change a record: unarchive and archive (employees), delete (shifts). */
export type ChangeKind = 'unarchive' | 'archive' | 'delete';

/** What an answer says, for the model: its status, its code, `deleted` and the dates. */
export interface ChangeAnswer {
  readonly status: number;
  readonly code?: string;
  readonly deleted?: boolean;
  readonly createdDate?: string;
  readonly modifiedDate?: string;
  readonly deletedDate?: string;
}

/** What an answer with `body` (its JSON object, or `{}`) says, for the model. */
export function changeAnswerOf(
  status: number,
  body: Readonly<Record<string, unknown>>,
): ChangeAnswer {
  const text = (name: string) => (typeof body[name] === 'string' ? body[name] : undefined);
  const code = text('code');
  return {
    status,
    ...(code === undefined ? {} : { code }),
    ...(typeof body.deleted === 'boolean' ? { deleted: body.deleted } : {}),
    ...Object.fromEntries(
      DATE_FIELDS.flatMap((name) => (text(name) === undefined ? [] : [[name, text(name)]])),
    ),
  };
}

/** One call on one record, as the model reads it. */
export interface RecordCall {
  readonly kind: ChangeKind;
  /** The answer; undefined when it does not say whether the change happened (indeterminate). */
  readonly answer: ChangeAnswer | undefined;
  /** The earliest the change can have happened, by the target's clock (ms since the epoch). */
  readonly earliest: number;
}

/** A date the model knows nothing of. */
export const UNKNOWN_DATE: DateSlot = { atLeast: Number.NEGATIVE_INFINITY };

/**
 * The states of a record the model knows nothing of: archived (deleted) or not, every date
 * unknown. Every state of the record is one of them, its dates known, so an order that fits from
 * the record's true state fits from one of these.
 */
export const ANY_RECORD_STATES: readonly RecordModelState[] = [
  { deleted: false, createdDate: UNKNOWN_DATE, modifiedDate: UNKNOWN_DATE, deletedDate: undefined },
  {
    deleted: true,
    createdDate: UNKNOWN_DATE,
    modifiedDate: UNKNOWN_DATE,
    deletedDate: UNKNOWN_DATE,
  },
];

/** Dates parsed, by their text: a search tries each answer in many states (at most 4096 kept). */
const parsed = new Map<string, number>();

/** `Date.parse`, once per text. */
function timeOf(text: string): number {
  let at = parsed.get(text);
  if (at === undefined) {
    at = Date.parse(text);
    if (parsed.size >= 4096) parsed.clear();
    parsed.set(text, at);
  }
  return at;
}

const lowest = (slot: DateSlot): number => ('value' in slot ? timeOf(slot.value) : slot.atLeast);

const showSlot = (slot: DateSlot): string =>
  'value' in slot
    ? slot.value
    : slot.atLeast === Number.NEGATIVE_INFINITY
      ? 'not known yet'
      : `not known yet, not before ${new Date(slot.atLeast).toISOString()}`;

/** A record's state in words: `archived (modifiedDate …, deletedDate …)`. */
export function describeState(record: 'employee' | 'shift', state: RecordModelState): string {
  const word =
    record === 'employee'
      ? state.deleted
        ? 'archived'
        : 'not archived'
      : state.deleted
        ? 'deleted'
        : 'not deleted';
  const dates = [`modifiedDate ${showSlot(state.modifiedDate)}`];
  if (state.deletedDate !== undefined) dates.push(`deletedDate ${showSlot(state.deletedDate)}`);
  return `${word} (${dates.join(', ')})`;
}

/** An answer in words: `200 deleted true, modifiedDate …` or `400 EMPLOYEE_NOT_ARCHIVED`. */
export function describeAnswer(answer: ChangeAnswer | undefined): string {
  if (answer === undefined) return 'no answer that says whether it happened';
  if (answer.status !== 200)
    return `${answer.status}${answer.code === undefined ? '' : ` ${answer.code}`}`;
  const parts = [`deleted ${String(answer.deleted)}`, `modifiedDate ${answer.modifiedDate}`];
  if (answer.deletedDate !== undefined) parts.push(`deletedDate ${answer.deletedDate}`);
  return `200 ${parts.join(', ')}`;
}

const slotKey = (slot: DateSlot | undefined) =>
  slot === undefined ? '-' : 'value' in slot ? slot.value : `>=${slot.atLeast}`;

/** An answer's date held to what the state knows of it: equal when known, bound when not. */
function bindDate(name: string, slot: DateSlot, shown: string | undefined): ModelStep<DateSlot> {
  if (shown === undefined) return { ok: false, why: () => `its answer has no ${name}` };
  if ('value' in slot) {
    return shown === slot.value
      ? { ok: true, next: slot }
      : { ok: false, why: () => `${name} must stay ${slot.value}; answered ${shown}` };
  }
  return timeOf(shown) >= slot.atLeast
    ? { ok: true, next: { value: shown } }
    : { ok: false, why: () => `${name} ${shown} is before ${showSlot(slot)}` };
}

/** A date a change sets: not before the modifiedDate it finds, nor before the request was sent. */
function newDate(
  name: string,
  before: DateSlot,
  earliest: number,
  shown: string | undefined,
): ModelStep<DateSlot> {
  if (shown === undefined) return { ok: false, why: () => `its answer has no ${name}` };
  const at = timeOf(shown);
  if (!(at >= lowest(before))) {
    return {
      ok: false,
      why: () => `it sets ${name} ${shown}, before the modifiedDate it finds, ${showSlot(before)}`,
    };
  }
  if (!(at >= earliest)) {
    return {
      ok: false,
      why: () =>
        `it sets ${name} ${shown}, before the request was sent (${new Date(earliest).toISOString()} by the target's clock)`,
    };
  }
  return { ok: true, next: { value: shown } };
}

/**
 * A refusal, its words made only when a report needs them: what the call finds, then what it must
 * answer and what it answered, or why its dates cannot be.
 */
function refusal(
  record: 'employee' | 'shift',
  state: RecordModelState,
  answer: ChangeAnswer,
  must: string | (() => string),
): ModelStep<RecordModelState> {
  return {
    ok: false,
    why: () => {
      const finds = `finds the ${record} ${describeState(record, state)}`;
      return typeof must === 'string'
        ? `${finds}: must ${must}; answered ${describeAnswer(answer)}`
        : `${finds}: ${must()}`;
    },
  };
}

/**
 * The model of one record's state tables (docs/contract.md): unarchive of an archived employee
 * answers 200 and unarchives it, of one that is not archived 400 EMPLOYEE_NOT_ARCHIVED; archive
 * (or a shift delete) of a record that is not archived (deleted) answers 200 and archives it, of
 * one that is, 200 with the record unchanged.
 *
 * @param record - the kind of record, for the words of the refusals
 * @returns the model, for `checkLinearizable`
 */
export function recordModel(
  record: 'employee' | 'shift',
): SequentialModel<RecordModelState, RecordCall> {
  const archived = record === 'employee' ? 'archived' : 'deleted';
  return {
    key: (s) =>
      `${s.deleted ? 1 : 0}|${slotKey(s.createdDate)}|${slotKey(s.modifiedDate)}|${slotKey(s.deletedDate)}`,
    step(state, call, determinate): ModelStep<RecordModelState> {
      const changes = call.kind === 'unarchive' ? state.deleted : !state.deleted;
      if (!determinate || call.answer === undefined) {
        // Any answer: the state after the change, its dates unknown until an answer shows them.
        if (!changes) return { ok: true, next: state };
        const from = Math.max(lowest(state.modifiedDate), call.earliest);
        const date = { atLeast: from };
        return {
          ok: true,
          next:
            call.kind === 'unarchive'
              ? { ...state, deleted: false, modifiedDate: date, deletedDate: undefined }
              : { ...state, deleted: true, modifiedDate: date, deletedDate: date },
        };
      }
      const { answer } = call;
      if (call.kind === 'unarchive' && !changes) {
        return answer.status === 400 && answer.code === 'EMPLOYEE_NOT_ARCHIVED'
          ? { ok: true, next: state }
          : refusal(record, state, answer, 'answer 400 EMPLOYEE_NOT_ARCHIVED');
      }
      const deleted = call.kind !== 'unarchive';
      if (answer.status !== 200) {
        return refusal(
          record,
          state,
          answer,
          `answer 200 with ${changes ? `the ${record} ${deleted ? archived : 'unarchived'}` : 'it unchanged'}`,
        );
      }
      if (answer.deleted !== deleted)
        return refusal(record, state, answer, `answer deleted ${deleted}`);
      const created = bindDate('createdDate', state.createdDate, answer.createdDate);
      if (!created.ok) return refusal(record, state, answer, created.why);
      if (!changes) {
        // A no-op: the record as it is, every date included.
        const modified = bindDate('modifiedDate', state.modifiedDate, answer.modifiedDate);
        if (!modified.ok) return refusal(record, state, answer, 'answer it unchanged');
        const deletedDate = bindDate(
          'deletedDate',
          state.deletedDate ?? UNKNOWN_DATE,
          answer.deletedDate,
        );
        if (!deletedDate.ok) return refusal(record, state, answer, 'answer it unchanged');
        return {
          ok: true,
          next: {
            ...state,
            createdDate: created.next,
            modifiedDate: modified.next,
            deletedDate: deletedDate.next,
          },
        };
      }
      // A change: modifiedDate (and, for an archive or a delete, deletedDate) set anew.
      const modified = newDate(
        'modifiedDate',
        state.modifiedDate,
        call.earliest,
        answer.modifiedDate,
      );
      if (!modified.ok) return refusal(record, state, answer, modified.why);
      const removed = deleted
        ? newDate('deletedDate', state.modifiedDate, call.earliest, answer.deletedDate)
        : undefined;
      if (removed !== undefined && !removed.ok) return refusal(record, state, answer, removed.why);
      return {
        ok: true,
        next: {
          deleted,
          createdDate: created.next,
          modifiedDate: modified.next,
          deletedDate: removed?.next,
        },
      };
    },
  };
}
