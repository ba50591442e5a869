import type { Employee, RecordedEvent, Restaurant, Shift } from '@workforce-kit/core';
import type { components } from '@workforce-kit/types';

type Schemas = components['schemas'];

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
/** `T` with `undefined` allowed on its optional keys, before {@link present} drops them. */
type Loose<T> = Omit<T, OptionalKeys<T>> & { [K in OptionalKeys<T>]?: T[K] | undefined };

/** A read-only array as the generated (mutable) array type, element types still checked. */
function wire<T>(items: readonly T[] | undefined): T[] | undefined {
  return items as T[] | undefined;
}

/** A copy without the keys that hold no value: the wire never carries `null` or `undefined`. */
function present<T extends object>(value: Loose<T>): T {
  const copy: Record<string, unknown> = {};
  for (const key in value) {
    const item = value[key as keyof typeof value];
    if (item !== undefined) copy[key] = item;
  }
  return copy as T;
}

/*
 * The top level of each body is picked field by field: that is what keeps what the store holds
 * besides (owning restaurant, version, swipe card, the point-of-sale passcode) off the wire. Nested values are passed through:
 * stored records are immutable and their nested types are the spec's own. Each function is typed
 * by the generated schema, so a spec change the mapping does not follow fails to compile.
 */

/** An employee as the wire shows it. */
export function toEmployeeBody(employee: Employee): Schemas['Employee'] {
  return present(looseEmployee(employee));
}

/**
 * The JSON text of {@link toEmployeeBody}, made without its copy (`JSON.stringify` leaves out
 * what is undefined): what a change's 200 sends.
 */
export function employeeJson(employee: Employee): string {
  return JSON.stringify(looseEmployee(employee));
}

function looseEmployee(employee: Employee): Loose<Schemas['Employee']> {
  return {
    guid: employee.guid,
    entityType: 'RestaurantUser',
    externalId: employee.externalId,
    createdDate: employee.createdDate,
    modifiedDate: employee.modifiedDate,
    deletedDate: employee.deletedDate,
    firstName: employee.firstName,
    chosenName: employee.chosenName,
    lastName: employee.lastName,
    email: employee.email,
    phoneNumber: employee.phoneNumber,
    phoneNumberCountryCode: employee.phoneNumberCountryCode,
    externalEmployeeId: employee.externalEmployeeId,
    deleted: employee.deleted,
    jobReferences: wire(employee.jobReferences),
    wageOverrides: wire(employee.wageOverrides),
    v2EmployeeGuid: employee.v2EmployeeGuid,
  };
}

/** A shift as the wire shows it. */
export function toShiftBody(shift: Shift): Schemas['Shift'] {
  return present(looseShift(shift));
}

/** The JSON text of {@link toShiftBody}, made without its copy: what a delete's 200 sends. */
export function shiftJson(shift: Shift): string {
  return JSON.stringify(looseShift(shift));
}

function looseShift(shift: Shift): Loose<Schemas['Shift']> {
  return {
    guid: shift.guid,
    entityType: 'Shift',
    externalId: shift.externalId,
    createdDate: shift.createdDate,
    modifiedDate: shift.modifiedDate,
    deletedDate: shift.deletedDate,
    deleted: shift.deleted,
    jobReference: shift.jobReference,
    employeeReference: shift.employeeReference,
    inDate: shift.inDate,
    outDate: shift.outDate,
    scheduleConfig: shift.scheduleConfig,
  };
}

/** A restaurant's configuration as the wire shows it. */
export function toRestaurantBody(restaurant: Restaurant): Schemas['RestaurantInfo'] {
  const { schedules } = restaurant;
  const daySchedules = schedules?.daySchedules;
  return present<Schemas['RestaurantInfo']>({
    guid: restaurant.guid,
    general: restaurant.general,
    urls: restaurant.urls,
    location: restaurant.location,
    schedules:
      schedules &&
      present<Schemas['Schedules']>({
        // The spec's map holds the day schedules by key, and the optional string `identifier`.
        daySchedules:
          daySchedules &&
          (present({
            identifier: daySchedules.identifier,
            ...daySchedules.byKey,
          }) as Schemas['Schedules']['daySchedules']),
        weekSchedule: schedules.weekSchedule,
      }),
    delivery: restaurant.delivery,
    onlineOrdering: restaurant.onlineOrdering,
    prepTimes: restaurant.prepTimes,
  });
}

/** The webhook event type of each domain event. */
export const WEBHOOK_TYPES = {
  EmployeeArchived: 'employee.archived',
  EmployeeUnarchived: 'employee.unarchived',
  ShiftDeleted: 'shift.deleted',
} as const satisfies Record<RecordedEvent['type'], string>;

/** The body of a webhook delivery, as the spec's `webhooks` define it. */
export type WebhookBody =
  | Schemas['EmployeeArchivedWebhook']
  | Schemas['EmployeeUnarchivedWebhook']
  | Schemas['ShiftDeletedWebhook'];

/**
 * The body of the webhook that announces an event: its type, when it happened, and its data with
 * the record after the change as the API answered it (through {@link toEmployeeBody} or
 * {@link toShiftBody}: never the passcode). The same event always gives the same body, so that
 * every retry of a delivery carries the same bytes.
 *
 * @param event - the event as stored with its change
 * @param record - the employee (employee events) or shift (shift events) after the change
 * @example
 * ```ts
 * const body = JSON.stringify(toWebhookBody(event, employee)); // the employee after the change
 * ```
 */
export function toWebhookBody(event: RecordedEvent, record: Employee | Shift): WebhookBody {
  const common = {
    restaurantGuid: event.restaurantGuid,
    occurredAt: event.occurredAt,
    requestId: event.requestId,
  };
  switch (event.type) {
    case 'EmployeeArchived':
    case 'EmployeeUnarchived':
      return {
        type: WEBHOOK_TYPES[event.type],
        timestamp: event.occurredAt,
        data: {
          restaurantGuid: common.restaurantGuid,
          employeeGuid: event.employeeGuid,
          occurredAt: common.occurredAt,
          requestId: common.requestId,
          record: toEmployeeBody(record as Employee),
        },
      };
    case 'ShiftDeleted':
      return {
        type: WEBHOOK_TYPES.ShiftDeleted,
        timestamp: event.occurredAt,
        data: {
          restaurantGuid: common.restaurantGuid,
          shiftGuid: event.shiftGuid,
          occurredAt: common.occurredAt,
          requestId: common.requestId,
          record: toShiftBody(record as Shift),
        },
      };
    default: {
      const exhaustive: never = event;
      return exhaustive;
    }
  }
}
