// The model of one record (record-model.ts) with the events its calls emitted as observations:
// a call whose event came changed the record (an archive that finds it archived changes nothing,
// and a change that changes nothing emits no event), and the changes whose events came are in the
// order their events arrived. Read three ways: strictly, a call without an event changed nothing;
// loosely, it may have (its event lost or late); unordered, the order of arrival aside. The
// concurrent group tries them in that order to say which way its events are wrong
// (case-events.ts).
import type { ModelStep, SequentialModel } from './linearizability.js';
import {
  type ChangeKind,
  describeState,
  type RecordCall,
  type RecordModelState,
  recordModel,
} from './record-model.js';

/** How the events of a case are read (see the module's comment). */
export type EventReading = 'strict' | 'loose' | 'unordered';

/** A call with its event: the rank of its first event among the record's in the case, if any. */
export interface EventedCall extends RecordCall {
  readonly eventRank: number | undefined;
}

/** A record's state, and the rank of the last event of the changes placed so far. */
export interface EventedState {
  readonly record: RecordModelState;
  readonly lastRank: number;
}

/** The event a change of `kind` emits, as the spec's webhooks name it. */
export const eventTypeOf = (kind: ChangeKind): string =>
  kind === 'unarchive'
    ? 'employee.unarchived'
    : kind === 'archive'
      ? 'employee.archived'
      : 'shift.deleted';

const verbOf = (kind: ChangeKind): string =>
  kind === 'unarchive' ? 'unarchived' : kind === 'archive' ? 'archived' : 'deleted';

/** The states of the plain model, each before any event of the case. */
export const withoutEvents = (states: readonly RecordModelState[]): EventedState[] =>
  states.map((record) => ({ record, lastRank: -1 }));

/**
 * The record model with the case's events as observations, read as `reading` says.
 *
 * @param record - the kind of record
 * @param reading - strict, loose or unordered (the module's comment)
 * @returns the model, for `checkLinearizable`
 */
export function recordEventsModel(
  record: 'employee' | 'shift',
  reading: EventReading,
): SequentialModel<EventedState, EventedCall> {
  const plain = recordModel(record);
  return {
    key: (s) => `${plain.key(s.record)}|${s.lastRank}`,
    step(state, call, determinate): ModelStep<EventedState> {
      const inner = plain.step(state.record, call, determinate);
      if (!inner.ok) return inner;
      const changed = inner.next.deleted !== state.record.deleted;
      const finds = () => `finds the ${record} ${describeState(record, state.record)}`;
      const type = eventTypeOf(call.kind);
      if (call.eventRank === undefined) {
        if (reading === 'strict' && changed) {
          return {
            ok: false,
            why: () => `${finds()}: it ${verbOf(call.kind)} it, and no ${type} event came for it`,
          };
        }
        return { ok: true, next: { record: inner.next, lastRank: state.lastRank } };
      }
      if (!changed) {
        return {
          ok: false,
          why: () =>
            `${finds()}: it changes nothing there, yet its ${type} event says it ${verbOf(call.kind)} the ${record}`,
        };
      }
      if (reading !== 'unordered' && call.eventRank <= state.lastRank) {
        return {
          ok: false,
          why: () =>
            `${finds()}: its ${type} event came before the event of a change this order puts before it`,
        };
      }
      const lastRank = reading === 'unordered' ? state.lastRank : call.eventRank;
      return { ok: true, next: { record: inner.next, lastRank } };
    },
  };
}
