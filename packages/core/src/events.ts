import type { Guid } from './identifiers.js';
import type { Instant } from './records.js';

/** An employee was archived. */
export interface EmployeeArchived {
  readonly type: 'EmployeeArchived';
  readonly restaurantGuid: Guid;
  readonly employeeGuid: Guid;
  readonly occurredAt: Instant;
}

/** An archived employee was unarchived. */
export interface EmployeeUnarchived {
  readonly type: 'EmployeeUnarchived';
  readonly restaurantGuid: Guid;
  readonly employeeGuid: Guid;
  readonly occurredAt: Instant;
}

/** A shift was marked deleted. */
export interface ShiftDeleted {
  readonly type: 'ShiftDeleted';
  readonly restaurantGuid: Guid;
  readonly shiftGuid: Guid;
  readonly occurredAt: Instant;
}

/** A state change, as a transition yields it. No-op calls yield none. */
export type DomainEvent = EmployeeArchived | EmployeeUnarchived | ShiftDeleted;

/** A domain event as it is stored with its change (in an outbox) and handed to subscribers. */
export type RecordedEvent = DomainEvent & {
  /** Unique id of the event, from the id source. */
  readonly eventId: string;
  /** The id of the request that caused the change. */
  readonly requestId: string;
};

/** The GUID of the record an event is about. */
export function eventSubject(event: DomainEvent): Guid {
  switch (event.type) {
    case 'EmployeeArchived':
    case 'EmployeeUnarchived':
      return event.employeeGuid;
    case 'ShiftDeleted':
      return event.shiftGuid;
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}
