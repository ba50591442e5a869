import type { ExternalId, Guid } from './identifiers.js';

/**
 * An instant as an ISO 8601 UTC string with milliseconds (`2026-03-01T17:00:00.000Z`), the form
 * `Date.prototype.toISOString` returns.
 */
export type Instant = string;

/** A reference to another record of the platform (a job, an employee). */
export interface Reference {
  readonly guid: Guid;
  /** `RestaurantJob` for a job, `RestaurantUser` for an employee. */
  readonly entityType: string;
  readonly externalId?: ExternalId;
}

/** A wage for one job that overrides the job's default wage for this employee. */
export interface WageOverride {
  readonly jobReference: Reference;
  /** Non-negative, in the restaurant's currency. */
  readonly wage: number;
}

/** What every stored record carries besides its fields: its owner and its version. */
export interface StoredRecord {
  /** The restaurant the record belongs to; it is visible in that restaurant's context only. */
  readonly restaurantGuid: Guid;
  readonly guid: Guid;
  /**
   * Incremented by the store on every write; writes are conditional on the version read
   * (compare-and-set). Starts at 1.
   */
  readonly version: number;
  readonly createdDate: Instant;
  readonly modifiedDate: Instant;
}

/**
 * Whether a record is deleted (for an employee, archived) and since when: `deletedDate` is present
 * exactly when `deleted` is true, which the compiler checks.
 */
export type Deletion =
  | { readonly deleted: false; readonly deletedDate?: never }
  | { readonly deleted: true; readonly deletedDate: Instant };

/**
 * An employee of a restaurant. `deleted` is the archived state (the platform's name for it);
 * `deletedDate` is present exactly when `deleted` is true.
 */
export type Employee = EmployeeFields & Deletion;

/** The fields of an {@link Employee} besides its {@link Deletion}. */
export interface EmployeeFields extends StoredRecord {
  readonly externalId?: ExternalId;
  readonly firstName?: string;
  readonly chosenName?: string;
  readonly lastName?: string;
  readonly email?: string;
  readonly phoneNumber?: string;
  readonly phoneNumberCountryCode?: string;
  readonly passcode?: string;
  readonly externalEmployeeId?: string;
  readonly jobReferences?: readonly Reference[];
  readonly wageOverrides?: readonly WageOverride[];
  readonly v2EmployeeGuid?: Guid;
  /**
   * The swipe card associated with the employee. Archiving drops it; unarchiving does not
   * restore it. Never shown on the wire.
   */
  readonly swipeCard?: string;
}

/** The clock-in and clock-out window of a shift, in minutes around `inDate` and `outDate`. */
export interface ScheduleConfig {
  readonly guid?: Guid;
  readonly minBeforeClockIn?: number;
  readonly minAfterClockIn?: number;
  readonly minBeforeClockOut?: number;
  readonly minAfterClockOut?: number;
}

/** A schedule shift. `deletedDate` is present exactly when `deleted` is true. */
export type Shift = ShiftFields & Deletion;

/** The fields of a {@link Shift} besides its {@link Deletion}. */
export interface ShiftFields extends StoredRecord {
  readonly externalId?: ExternalId;
  readonly jobReference?: Reference;
  readonly employeeReference?: Reference;
  readonly inDate?: Instant;
  readonly outDate?: Instant;
  readonly scheduleConfig?: ScheduleConfig;
}

/** General facts about a restaurant: its name, time zone, currency, closeout hour, archived state. */
export interface RestaurantGeneral {
  readonly name: string;
  readonly locationName?: string;
  readonly locationCode?: string;
  readonly description?: string;
  /** IANA time zone name. */
  readonly timeZone?: string;
  /** 0 to 23. */
  readonly closeoutHour?: number;
  readonly managementGroupGuid?: Guid;
  /** ISO 4217. */
  readonly currencyCode?: string;
  /** `yyyyMMdd` as an integer. */
  readonly firstBusinessDate?: number;
  readonly archived: boolean;
}

/** Web addresses of a restaurant: its site, social pages, online ordering and gift cards. */
export interface RestaurantUrls {
  readonly website?: string;
  readonly facebook?: string;
  readonly twitter?: string;
  readonly orderOnline?: string;
  readonly purchaseGiftCard?: string;
  readonly checkGiftCard?: string;
}

/** A restaurant's address, phone number and position. */
export interface RestaurantLocation {
  readonly address1?: string;
  readonly address2?: string;
  readonly city?: string;
  readonly stateCode?: string;
  readonly administrativeArea?: string;
  readonly zipCode?: string;
  readonly country?: string;
  readonly phone?: string;
  readonly phoneCountryCode?: string;
  readonly latitude?: number;
  readonly longitude?: number;
}

/** A local time of day, `HH:mm:ss.SSS`. */
export type TimeOfDay = string;

/** A meal service within a day schedule, such as lunch or dinner, and its hours. */
export interface Service {
  readonly name?: string;
  readonly hours?: { readonly startTime?: TimeOfDay; readonly endTime?: TimeOfDay };
  readonly overnight?: boolean;
}

/** The opening hours and services of one kind of day (`weekday`, `weekend`, …). */
export interface DaySchedule {
  readonly scheduleName?: string;
  readonly services?: readonly Service[];
  readonly openTime?: TimeOfDay;
  readonly closeTime?: TimeOfDay;
}

/** The days of the week, as keys of a week schedule, Monday first. */
export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
/** A day of the week: one of {@link WEEKDAYS}. */
export type Weekday = (typeof WEEKDAYS)[number];

/** A restaurant's opening schedules: its day schedules, and which applies on each day of the week. */
export interface Schedules {
  /** Day schedules by key, and the optional opaque `identifier` of the schedule set. */
  readonly daySchedules?: {
    readonly identifier?: string;
    readonly byKey: Readonly<Record<string, DaySchedule>>;
  };
  /** For each open day, a key of `daySchedules`; a day that is absent is closed. */
  readonly weekSchedule?: Readonly<Partial<Record<Weekday, string>>>;
}

/** A restaurant's delivery settings. */
export interface Delivery {
  readonly enabled?: boolean;
  readonly minimum?: number;
  readonly area?: string;
}

/** The payment methods a restaurant's online orders accept, for delivery and takeout. */
export interface PaymentOptions {
  readonly delivery?: {
    readonly cash?: boolean;
    readonly ccSameDay?: boolean;
    readonly ccFuture?: boolean;
  };
  readonly takeout?: {
    readonly cash?: boolean;
    readonly ccSameDay?: boolean;
    readonly ccFuture?: boolean;
    readonly ccInStore?: boolean;
  };
  readonly ccTip?: boolean;
}

/** A restaurant's online ordering settings. */
export interface OnlineOrdering {
  readonly enabled?: boolean;
  readonly scheduling?: boolean;
  readonly specialRequests?: boolean;
  readonly specialRequestsMessage?: string;
  readonly paymentOptions?: PaymentOptions;
}

/** Minutes. */
export interface PrepTimes {
  readonly deliveryPrepTime?: number;
  readonly deliveryTimeAfterOpen?: number;
  readonly deliveryTimeBeforeClose?: number;
  readonly takeoutPrepTime?: number;
  readonly takeoutTimeAfterOpen?: number;
  readonly takeoutTimeBeforeClose?: number;
  readonly takeoutThrottlingTime?: number;
  readonly deliveryThrottlingTime?: number;
}

/** The configuration record of a restaurant. Restaurants have no transitions here. */
export interface Restaurant {
  readonly guid: Guid;
  readonly general: RestaurantGeneral;
  readonly urls?: RestaurantUrls;
  readonly location?: RestaurantLocation;
  readonly schedules?: Schedules;
  readonly delivery?: Delivery;
  readonly onlineOrdering?: OnlineOrdering;
  readonly prepTimes?: PrepTimes;
}
