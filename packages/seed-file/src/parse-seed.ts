import {
  type DaySchedule,
  type ExternalId,
  type Guid,
  IDENTIFIER_PATTERNS,
  type Instant,
  type SeedRecords,
  WEEKDAYS,
} from '@workforce-kit/core';
import { err, ok, type Result } from 'neverthrow';
import { z } from 'zod';

/** The OAuth scopes of the operations, which a client of the seed may be granted. */
export const SCOPES = ['labor.employees:write', 'labor.shifts:write', 'restaurants:read'] as const;
/** One of the {@link SCOPES}. */
export type Scope = (typeof SCOPES)[number];

/** A machine client of the development login: its secret, scopes and restaurants. */
export interface SeedClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly Scope[];
  /** Restaurant GUIDs the client may act for; `'*'` for all. */
  readonly restaurants: readonly (Guid | '*')[];
}

/**
 * A parsed, validated seed: the records, ready for a store's `seed` (the core's `SeedRecords`),
 * and the clients of the development login.
 */
export interface Seed extends SeedRecords {
  readonly clients: readonly SeedClient[];
}

/** One problem of a seed file. */
export interface SeedIssue {
  /** The entry at fault, such as `employees[3]`, with its GUID when it has one; `seed` for the whole file. */
  readonly entry: string;
  /** The field within the entry, such as `jobReferences[0].guid`; empty for the entry itself. */
  readonly field: string;
  readonly message: string;
}

/** A seed that does not match the seed format. Nothing of it is loaded. */
export interface SeedInvalid {
  readonly type: 'SeedInvalid';
  readonly issues: readonly SeedIssue[];
}

const guidPattern = new RegExp(IDENTIFIER_PATTERNS.guid, 'u');
const externalIdPattern = new RegExp(IDENTIFIER_PATTERNS.externalId, 'u');

const guid = z
  .string()
  .regex(guidPattern, 'must be a platform GUID (8-4-4-4-12 hex)')
  .transform((value) => value.toLowerCase() as Guid);
const externalId = z
  .string()
  .regex(externalIdPattern, 'must be an external identifier {namingAuthority}:{value}')
  .transform((value) => value as ExternalId);
const instant = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with a time zone' })
  .transform((value): Instant => new Date(value).toISOString())
  // A UTC year outside 0000-9999 (an extreme offset) has no four-digit form.
  .refine((value) => /^\d{4}-/.test(value), 'must fall within the years 0000 to 9999 in UTC');
const text = z.string().min(1, 'must not be empty');
const minutes = z.int('must be a whole number of minutes').min(0, 'must not be negative');
const amount = z.number().min(0, 'must not be negative');
const webUrl = z.url({ protocol: /^https?$/, message: 'must be an http(s) URL' });
const timeOfDay = z
  .string()
  .regex(/^(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}$/, 'must be a time HH:mm:ss.SSS');
const callingCode = z.string().regex(/^\d{1,4}$/, 'must be 1 to 4 digits');

const reference = (defaultEntityType: string) =>
  z.strictObject({
    guid,
    entityType: text.default(defaultEntityType),
    externalId: externalId.optional(),
  });

const jobReference = reference('RestaurantJob');

const employeeEntry = z.strictObject({
  restaurantGuid: guid,
  guid,
  entityType: z.literal('RestaurantUser').optional(),
  externalId: externalId.optional(),
  createdDate: instant.optional(),
  modifiedDate: instant.optional(),
  deletedDate: instant.optional(),
  firstName: z.string().optional(),
  chosenName: z.string().optional(),
  lastName: z.string().optional(),
  email: z.email('must be an email address').optional(),
  phoneNumber: z.string().optional(),
  phoneNumberCountryCode: callingCode.optional(),
  passcode: z.string().optional(),
  externalEmployeeId: z.string().optional(),
  deleted: z.boolean().default(false),
  jobReferences: z.array(jobReference).optional(),
  wageOverrides: z.array(z.strictObject({ jobReference, wage: amount })).optional(),
  v2EmployeeGuid: guid.optional(),
  swipeCard: text.optional(),
});

const shiftEntry = z.strictObject({
  restaurantGuid: guid,
  guid,
  entityType: z.literal('Shift').optional(),
  externalId: externalId.optional(),
  createdDate: instant.optional(),
  modifiedDate: instant.optional(),
  deletedDate: instant.optional(),
  deleted: z.boolean().default(false),
  jobReference: jobReference.optional(),
  employeeReference: reference('RestaurantUser').optional(),
  inDate: instant.optional(),
  outDate: instant.optional(),
  scheduleConfig: z
    .strictObject({
      guid: guid.optional(),
      minBeforeClockIn: minutes.optional(),
      minAfterClockIn: minutes.optional(),
      minBeforeClockOut: minutes.optional(),
      minAfterClockOut: minutes.optional(),
    })
    .optional(),
});

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const currencies = new Set(Intl.supportedValuesOf('currency'));

function isCalendarDate(yyyymmdd: number): boolean {
  const year = Math.floor(yyyymmdd / 10_000);
  const month = Math.floor(yyyymmdd / 100) % 100;
  const day = yyyymmdd % 100;
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

const daySchedule = z.strictObject({
  scheduleName: z.string().optional(),
  services: z
    .array(
      z.strictObject({
        name: z.string().optional(),
        hours: z
          .strictObject({ startTime: timeOfDay.optional(), endTime: timeOfDay.optional() })
          .optional(),
        overnight: z.boolean().optional(),
      }),
    )
    .optional(),
  openTime: timeOfDay.optional(),
  closeTime: timeOfDay.optional(),
});

const daySchedules = z.unknown().transform((entries, ctx) => {
  if (entries === null || typeof entries !== 'object' || Array.isArray(entries)) {
    ctx.addIssue({ code: 'custom', message: 'must be an object of day schedules' });
    return z.NEVER;
  }
  const byKey: Record<string, DaySchedule> = {};
  let identifier: string | undefined;
  // Object.keys, not a record schema: JSON.parse makes `__proto__` an own key, which must be seen.
  for (const key of Object.keys(entries)) {
    const value = (entries as Record<string, unknown>)[key];
    if (key === 'identifier') {
      if (typeof value === 'string') identifier = value;
      else ctx.addIssue({ code: 'custom', path: [key], message: 'must be a string' });
      continue;
    }
    if (key === '__proto__' || key.length === 0 || key.length > 64) {
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: 'is not a usable day schedule key (1 to 64 characters)',
      });
      continue;
    }
    const parsed = daySchedule.safeParse(value);
    if (parsed.success) byKey[key] = parsed.data as Parsed<typeof parsed.data>;
    else {
      for (const issue of parsed.error.issues) {
        ctx.addIssue({ code: 'custom', path: [key, ...issue.path], message: issue.message });
      }
    }
  }
  return identifier === undefined ? { byKey } : { identifier, byKey };
});

const schedules = z
  .strictObject({
    daySchedules: daySchedules.optional(),
    weekSchedule: z
      .strictObject(Object.fromEntries(WEEKDAYS.map((day) => [day, text.optional()])))
      .optional(),
  })
  .superRefine((value, ctx) => {
    for (const [day, key] of Object.entries(value.weekSchedule ?? {})) {
      if (key !== undefined && !Object.hasOwn(value.daySchedules?.byKey ?? {}, key)) {
        ctx.addIssue({
          code: 'custom',
          path: ['weekSchedule', day],
          message: `names "${key}", which is not a key of daySchedules`,
        });
      }
    }
  });

const restaurantEntry = z.strictObject({
  guid,
  general: z.strictObject({
    name: text,
    locationName: z.string().optional(),
    locationCode: z.string().optional(),
    description: z.string().optional(),
    timeZone: z.string().refine(isTimeZone, 'must be an IANA time zone name').optional(),
    closeoutHour: z.int().min(0).max(23, 'must be an hour 0 to 23').optional(),
    managementGroupGuid: guid.optional(),
    currencyCode: z
      .string()
      .refine((code) => /^[A-Z]{3}$/.test(code) && currencies.has(code), 'must be an ISO 4217 code')
      .optional(),
    firstBusinessDate: z.int().refine(isCalendarDate, 'must be a date yyyyMMdd').optional(),
    archived: z.boolean().default(false),
  }),
  urls: z
    .strictObject({
      website: webUrl.optional(),
      facebook: webUrl.optional(),
      twitter: webUrl.optional(),
      orderOnline: webUrl.optional(),
      purchaseGiftCard: webUrl.optional(),
      checkGiftCard: webUrl.optional(),
    })
    .optional(),
  location: z
    .strictObject({
      address1: z.string().optional(),
      address2: z.string().optional(),
      city: z.string().optional(),
      stateCode: z.string().optional(),
      administrativeArea: z.string().optional(),
      zipCode: z.string().optional(),
      country: z
        .string()
        .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code')
        .optional(),
      phone: z.string().optional(),
      phoneCountryCode: callingCode.optional(),
      latitude: z.number().min(-90).max(90).optional(),
      longitude: z.number().min(-180).max(180).optional(),
    })
    .optional(),
  schedules: schedules.optional(),
  delivery: z
    .strictObject({
      enabled: z.boolean().optional(),
      minimum: amount.optional(),
      area: z.string().optional(),
    })
    .optional(),
  onlineOrdering: z
    .strictObject({
      enabled: z.boolean().optional(),
      scheduling: z.boolean().optional(),
      specialRequests: z.boolean().optional(),
      specialRequestsMessage: z.string().optional(),
      paymentOptions: z
        .strictObject({
          delivery: z
            .strictObject({
              cash: z.boolean().optional(),
              ccSameDay: z.boolean().optional(),
              ccFuture: z.boolean().optional(),
            })
            .optional(),
          takeout: z
            .strictObject({
              cash: z.boolean().optional(),
              ccSameDay: z.boolean().optional(),
              ccFuture: z.boolean().optional(),
              ccInStore: z.boolean().optional(),
            })
            .optional(),
          ccTip: z.boolean().optional(),
        })
        .optional(),
    })
    .optional(),
  prepTimes: z
    .strictObject({
      deliveryPrepTime: amount.optional(),
      deliveryTimeAfterOpen: amount.optional(),
      deliveryTimeBeforeClose: amount.optional(),
      takeoutPrepTime: amount.optional(),
      takeoutTimeAfterOpen: amount.optional(),
      takeoutTimeBeforeClose: amount.optional(),
      takeoutThrottlingTime: amount.optional(),
      deliveryThrottlingTime: amount.optional(),
    })
    .optional(),
});

const clientEntry = z.strictObject({
  clientId: text,
  clientSecret: text,
  scopes: z
    .array(z.enum(SCOPES, `must be one of ${SCOPES.join(', ')}`))
    .min(1, 'must name a scope'),
  restaurants: z.array(z.union([z.literal('*'), guid], 'must be a restaurant GUID or "*"')),
});

const ENTRY_SCHEMAS = {
  restaurants: restaurantEntry,
  employees: employeeEntry,
  shifts: shiftEntry,
  clients: clientEntry,
} as const;
type Collection = keyof typeof ENTRY_SCHEMAS;
const COLLECTIONS = Object.keys(ENTRY_SCHEMAS) as Collection[];

/** The file's outline: each collection an array (of entries checked one by one afterwards). */
const seedOutline = z.strictObject(
  Object.fromEntries(COLLECTIONS.map((name) => [name, z.array(z.unknown()).default([])])) as {
    [name in Collection]: z.ZodDefault<z.ZodArray<z.ZodUnknown>>;
  },
);

/**
 * zod types an optional key as `key?: T | undefined`. Parsed JSON never holds `undefined` (an
 * absent key stays absent), so the parsed values have the exact optional types of the records.
 */
type Parsed<T> = T extends string | number | boolean
  ? T
  : T extends readonly (infer U)[]
    ? readonly Parsed<U>[]
    : T extends object
      ? { [K in keyof T]: Parsed<Exclude<T[K], undefined>> }
      : T;

type SeedFile = {
  readonly [name in Collection]: readonly Parsed<z.output<(typeof ENTRY_SCHEMAS)[name]>>[];
};

/** An entry that passed its own checks, with its place in the file (for naming it). */
interface Located<T> {
  readonly index: number;
  readonly entry: T;
}
type LocatedFile = { readonly [name in Collection]: readonly Located<SeedFile[name][number]>[] };

/** `employees[3] (6a2b…)` for an entry; `seed` for the file. */
function entryName(file: unknown, path: readonly PropertyKey[]): string {
  const [collection, index] = path;
  if (typeof collection !== 'string' || typeof index !== 'number') return 'seed';
  const raw = (file as Record<string, unknown[] | undefined>)[collection]?.[index];
  const id =
    raw !== null && typeof raw === 'object'
      ? ((raw as Record<string, unknown>).guid ?? (raw as Record<string, unknown>).clientId)
      : undefined;
  return typeof id === 'string' ? `${collection}[${index}] (${id})` : `${collection}[${index}]`;
}

function fieldName(path: readonly PropertyKey[]): string {
  return path
    .map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

function issueAt(file: unknown, path: readonly PropertyKey[], message: string): SeedIssue {
  const isEntry = typeof path[0] === 'string' && typeof path[1] === 'number';
  return {
    entry: entryName(file, path),
    field: fieldName(isEntry ? path.slice(2) : path),
    message,
  };
}

/**
 * Rules across entries, over the entries that passed their own checks: unique GUIDs and external
 * ids, owners that exist, dates that agree. A restaurant counts as existing when its GUID is
 * well-formed, even if another of its fields is not, so that its employees are not blamed too.
 */
function crossEntryIssues(
  file: unknown,
  seed: LocatedFile,
  restaurantGuids: ReadonlySet<string>,
): SeedIssue[] {
  const issues: SeedIssue[] = [];
  const at = (collection: Collection, index: number, field: string, message: string) =>
    issues.push(issueAt(file, [collection, index, ...(field ? [field] : [])], message));

  const seenRestaurants = new Set<string>();
  for (const { index, entry } of seed.restaurants) {
    if (seenRestaurants.has(entry.guid)) at('restaurants', index, 'guid', 'is a duplicate');
    seenRestaurants.add(entry.guid);
  }

  for (const collection of ['employees', 'shifts'] as const) {
    const guids = new Set<string>();
    const externalIds = new Set<string>();
    for (const { index, entry } of seed[collection]) {
      if (!restaurantGuids.has(entry.restaurantGuid)) {
        at(collection, index, 'restaurantGuid', 'names no restaurant of the seed');
      }
      if (guids.has(entry.guid)) at(collection, index, 'guid', 'is a duplicate');
      guids.add(entry.guid);
      if (entry.externalId !== undefined) {
        const key = `${entry.restaurantGuid} ${entry.externalId}`;
        if (externalIds.has(key)) {
          at(collection, index, 'externalId', 'is a duplicate within its restaurant');
        }
        externalIds.add(key);
      }
      if (!entry.deleted && entry.deletedDate !== undefined) {
        at(collection, index, 'deletedDate', 'must be absent when deleted is false');
      }
    }
  }

  const clientIds = new Set<string>();
  for (const { index, entry: client } of seed.clients) {
    if (clientIds.has(client.clientId)) at('clients', index, 'clientId', 'is a duplicate');
    clientIds.add(client.clientId);
    client.restaurants.forEach((restaurant, r) => {
      if (restaurant !== '*' && !restaurantGuids.has(restaurant)) {
        at('clients', index, `restaurants[${r}]`, 'names no restaurant of the seed');
      }
    });
  }
  return issues;
}

interface Dated {
  readonly deleted: boolean;
  readonly createdDate?: Instant;
  readonly modifiedDate?: Instant;
  readonly deletedDate?: Instant;
}

/** A seeded record at version 1; missing dates are the load time; deletedDate only when deleted. */
function stamped<T extends Dated>(entry: T, loadedAt: Instant) {
  const { deleted, deletedDate, ...rest } = entry;
  const dated = {
    ...rest,
    version: 1,
    createdDate: entry.createdDate ?? loadedAt,
    modifiedDate: entry.modifiedDate ?? loadedAt,
  };
  return deleted
    ? { ...dated, deleted, deletedDate: deletedDate ?? loadedAt }
    : { ...dated, deleted };
}

function toRecords(seed: SeedFile, loadedAt: Instant): Seed {
  return {
    restaurants: seed.restaurants,
    employees: seed.employees.map(({ entityType: _type, ...entry }) => stamped(entry, loadedAt)),
    shifts: seed.shifts.map(({ entityType: _type, ...entry }) => stamped(entry, loadedAt)),
    clients: seed.clients,
  };
}

/**
 * Parses and validates a seed (the JSON of a seed file) into domain records. GUIDs come out in
 * lower case, dates in UTC with milliseconds; missing dates default to `loadedAt`; every record
 * starts at version 1. An employee or shift with `deleted: true` gets a `deletedDate`.
 *
 * @param json - the parsed JSON of the seed file
 * @param loadedAt - the load time, for missing dates
 * @returns the seed, or `SeedInvalid` naming every bad entry (then nothing should be loaded)
 * @example
 * ```ts
 * const seed = parseSeed(JSON.parse(await readFile(path, 'utf8')), new Date());
 * if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));
 * ```
 */
export function parseSeed(json: unknown, loadedAt: Date): Result<Seed, SeedInvalid> {
  const outline = seedOutline.safeParse(json);
  if (!outline.success) {
    return err({
      type: 'SeedInvalid',
      issues: outline.error.issues.map((issue) => issueAt(json, issue.path, issue.message)),
    });
  }
  const issues: SeedIssue[] = [];
  const located = {} as Record<Collection, Located<unknown>[]>;
  for (const collection of COLLECTIONS) {
    located[collection] = [];
    outline.data[collection].forEach((raw, index) => {
      const parsed = ENTRY_SCHEMAS[collection].safeParse(raw);
      if (parsed.success) located[collection].push({ index, entry: parsed.data });
      else {
        for (const issue of parsed.error.issues) {
          issues.push(issueAt(json, [collection, index, ...issue.path], issue.message));
        }
      }
    });
  }
  const restaurantGuids = new Set(
    outline.data.restaurants.flatMap((raw) => {
      const guidOf = guid.safeParse((raw as { guid?: unknown } | null)?.guid);
      return guidOf.success ? [guidOf.data] : [];
    }),
  );
  // The one assumption of this module: parsed JSON has no `undefined` values (see Parsed).
  const file = located as unknown as LocatedFile;
  issues.push(...crossEntryIssues(json, file, restaurantGuids));
  if (issues.length > 0) return err({ type: 'SeedInvalid', issues });
  const entries = <C extends Collection>(collection: C) =>
    file[collection].map(({ entry }) => entry);
  return ok(
    toRecords(
      {
        restaurants: entries('restaurants'),
        employees: entries('employees'),
        shifts: entries('shifts'),
        clients: entries('clients'),
      },
      loadedAt.toISOString(),
    ),
  );
}

/**
 * The issues of a refused seed as text, one line per issue:
 * `employees[3] (6a2b…) jobReferences[0].guid: must be a platform GUID`.
 *
 * @param invalid - the error of {@link parseSeed}
 * @returns the lines, joined with `\n`
 * @example
 * ```ts
 * const seed = parseSeed(json, new Date());
 * if (seed.isErr()) throw new Error(`the seed file is refused:\n${formatSeedIssues(seed.error)}`);
 * ```
 */
export function formatSeedIssues(invalid: SeedInvalid): string {
  return invalid.issues
    .map((issue) => `${issue.entry}${issue.field ? ` ${issue.field}` : ''}: ${issue.message}`)
    .join('\n');
}
