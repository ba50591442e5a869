import type { Shift } from './records.js';
import type { Transition } from './transition.js';

/**
 * Marks a shift deleted: `deleted: true`, `deletedDate` and `modifiedDate` set to `now`. Deleting
 * a deleted shift is a no-op: the same record, `modifiedDate` included, and no event. It never
 * fails.
 *
 * | state | next | event |
 * |---|---|---|
 * | not deleted | deleted | `ShiftDeleted` |
 * | deleted | deleted (unchanged) | none |
 *
 * @param shift - the shift as read
 * @param now - the time of the change
 * @returns the deleted shift and the event, if any
 * @example
 * ```ts
 * markDeleted(shift, new Date()).record.deleted; // true
 * ```
 */
export function markDeleted(shift: Shift, now: Date): Transition<Shift> {
  if (shift.deleted) return { record: shift, events: [] };
  const at = now.toISOString();
  return {
    record: { ...shift, deleted: true, deletedDate: at, modifiedDate: at },
    events: [
      {
        type: 'ShiftDeleted',
        restaurantGuid: shift.restaurantGuid,
        shiftGuid: shift.guid,
        occurredAt: at,
      },
    ],
  };
}
