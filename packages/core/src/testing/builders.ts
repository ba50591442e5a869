import type { ExternalId, Guid } from '../identifiers.js';
import type { SeedRecords } from '../ports.js';
import type {
  Deletion,
  Employee,
  EmployeeFields,
  Instant,
  Reference,
  Restaurant,
  Shift,
  ShiftFields,
} from '../records.js';

/**
 * Overrides of a built employee or shift: any of its fields, and its deletion as a whole
 * (`deleted` with its `deletedDate`, or neither).
 */
export type RecordOverrides<Fields> = Partial<Fields> &
  (Deletion | { readonly deleted?: never; readonly deletedDate?: never });

/** A fresh random platform GUID. */
export function newGuid(): Guid {
  return globalThis.crypto.randomUUID() as Guid;
}

const CREATED = '2026-01-05T09:00:00.000Z';

/** A job reference (`RestaurantJob`). */
export function aJobReference(overrides: Partial<Reference> = {}): Reference {
  return { guid: newGuid(), entityType: 'RestaurantJob', ...overrides };
}

/**
 * A restaurant, not archived, with a weekday and a weekend day schedule.
 *
 * @example
 * ```ts
 * const archived = aRestaurant({ general: { name: 'Closed', archived: true } });
 * ```
 */
export function aRestaurant(overrides: Partial<Restaurant> = {}): Restaurant {
  return {
    guid: newGuid(),
    general: {
      name: 'Harbor Street Kitchen',
      timeZone: 'America/New_York',
      currencyCode: 'USD',
      closeoutHour: 4,
      archived: false,
    },
    schedules: {
      daySchedules: {
        identifier: 'hsk-2026-spring',
        byKey: {
          weekday: { scheduleName: 'Weekday', openTime: '11:00:00.000', closeTime: '23:00:00.000' },
          weekend: { scheduleName: 'Weekend', openTime: '09:00:00.000', closeTime: '02:00:00.000' },
        },
      },
      weekSchedule: { monday: 'weekday', friday: 'weekday', saturday: 'weekend' },
    },
    ...overrides,
  };
}

/**
 * An employee of `restaurantGuid`, not archived, with two jobs, a wage override, a swipe card and
 * a point-of-sale passcode.
 *
 * @example
 * ```ts
 * const archived = anEmployee(restaurant.guid, { deleted: true, deletedDate: '2026-02-01T00:00:00.000Z' });
 * ```
 */
export function anEmployee(
  restaurantGuid: Guid,
  overrides: RecordOverrides<EmployeeFields> = {},
): Employee {
  const lineCook = aJobReference({ externalId: 'POS:line-cook' as ExternalId });
  return {
    restaurantGuid,
    guid: newGuid(),
    version: 1,
    createdDate: CREATED,
    modifiedDate: CREATED,
    deleted: false,
    firstName: 'Maria',
    lastName: 'Lopez',
    jobReferences: [lineCook, aJobReference()],
    wageOverrides: [{ jobReference: lineCook, wage: 21.5 }],
    swipeCard: 'card-0042',
    passcode: '4821',
    ...overrides,
  };
}

/** An archived employee of `restaurantGuid` (no swipe card: archiving dropped it). */
export function anArchivedEmployee(
  restaurantGuid: Guid,
  overrides: Partial<EmployeeFields> & { readonly deletedDate?: Instant } = {},
): Employee {
  const { swipeCard: _dropped, ...employee } = anEmployee(restaurantGuid);
  return { ...employee, deleted: true, deletedDate: '2026-02-01T12:00:00.000Z', ...overrides };
}

/** A shift of `restaurantGuid`, not deleted. */
export function aShift(restaurantGuid: Guid, overrides: RecordOverrides<ShiftFields> = {}): Shift {
  return {
    restaurantGuid,
    guid: newGuid(),
    version: 1,
    createdDate: CREATED,
    modifiedDate: CREATED,
    deleted: false,
    jobReference: aJobReference(),
    inDate: '2026-03-01T21:00:00.000Z',
    outDate: '2026-03-02T05:00:00.000Z',
    scheduleConfig: { minBeforeClockIn: 15, minAfterClockIn: 10 },
    ...overrides,
  };
}

/** Records to seed a store with, of the given parts; the missing collections are empty. */
export function seedRecords(parts: Partial<SeedRecords> = {}): SeedRecords {
  return { restaurants: [], employees: [], shifts: [], ...parts };
}
