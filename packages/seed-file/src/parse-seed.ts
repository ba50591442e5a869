import {
  type DaySchedule,
  type EmployeeFields,
  type Guid,
  type Instant,
  isGuid,
  type Restaurant,
  type SeedRecords,
  type ShiftFields,
  WEEKDAYS,
  type Weekday,
} from '@workforce-kit/core';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { err, ok, type Result } from 'neverthrow';
import { SEED_FILE_SCHEMA } from './seed-schema.js';

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

// ajv-formats is CommonJS: Node's default import is its module.exports, the plugin, which also
// holds itself as `default` (what the types describe).
const addFormats = addFormatsModule.default;

const COLLECTIONS = ['restaurants', 'employees', 'shifts', 'clients'] as const;
type Collection = (typeof COLLECTIONS)[number];

let compiled: ValidateFunction | undefined;

/**
 * The validator of the seed file's schema, compiled on first use. It fills in the schema's
 * defaults (`deleted: false`, the references' entity types, empty collections) as it goes.
 */
function validator(): ValidateFunction {
  if (compiled === undefined) {
    const ajv = new Ajv2020({ allErrors: true, useDefaults: true, verbose: true, strict: true });
    addFormats(ajv);
    compiled = ajv.compile(SEED_FILE_SCHEMA);
  }
  return compiled;
}

/** A key of an instance path: a property name, or an index into an array. */
type PathKey = string | number;

/** The keys of a JSON pointer into `root`: an array's indexes as numbers. */
function pathOf(root: unknown, pointer: string): PathKey[] {
  const path: PathKey[] = [];
  let value = root;
  for (const segment of pointer.split('/').slice(1)) {
    const key = segment.replaceAll('~1', '/').replaceAll('~0', '~');
    const index = Array.isArray(value) ? Number(key) : Number.NaN;
    path.push(Number.isInteger(index) ? index : key);
    value =
      value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : value;
  }
  return path;
}

const article = (word: string) => (/^[aeio]/.test(word) ? `an ${word}` : `a ${word}`);

/**
 * What an ajv error says of its field: `must be ` and the `title` of the schema that refuses the
 * value (`must be a platform GUID (8-4-4-4-12 hex)`), or the keyword's own words.
 */
function messageOf(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return 'is missing';
  if (error.keyword === 'additionalProperties') {
    return `has an unknown field "${String(params.additionalProperty)}"`;
  }
  // Every error of a verbose validator has its schema node.
  const { title } = error.parentSchema as { title?: unknown };
  if (typeof title === 'string') return `must be ${title}`;
  if (error.keyword === 'type') return `must be ${article(String(params.type))}`;
  if (error.keyword === 'const') return `must be ${JSON.stringify(params.allowedValue)}`;
  return String(error.message);
}

/** Where an ajv error points: the value refused, or the field missing. */
function errorPath(json: unknown, error: ErrorObject): PathKey[] {
  const path = pathOf(json, error.instancePath);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') path.push(String(params.missingProperty));
  // An error of `propertyNames` is about a key of the object, which it names.
  const { propertyName } = error as { propertyName?: string };
  if (propertyName !== undefined) path.push(propertyName);
  return path;
}

/** Whether the JSON pointer `path` is `parent` or points into it. */
const within = (path: string, parent: string) => path === parent || path.startsWith(`${parent}/`);

/**
 * The errors to say: without those that only sum up others (a failing `if`, `propertyNames`),
 * and with a failing `anyOf` said once, by its title, rather than by each of its branches.
 */
function saidErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const anyOf = errors.filter((e) => e.keyword === 'anyOf');
  return errors.filter(
    (error) =>
      error.keyword !== 'if' &&
      error.keyword !== 'propertyNames' &&
      !anyOf.some((a) => a !== error && within(error.instancePath, a.instancePath)),
  );
}

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

/** An instant in UTC with milliseconds, or undefined when it does not parse. */
function utc(value: string): Instant | undefined {
  const time = Date.parse(value);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

/**
 * What the parser checks beyond the schema, by the `$defs` entry of the values it checks: the
 * problem, or undefined.
 */
const BEYOND_SCHEMA: Readonly<Record<string, (value: unknown) => string | undefined>> = {
  timeZone: (value) =>
    typeof value === 'string' && !isTimeZone(value) ? 'must be an IANA time zone name' : undefined,
  currencyCode: (value) =>
    typeof value === 'string' && !currencies.has(value) ? 'must be an ISO 4217 code' : undefined,
  businessDate: (value) =>
    typeof value === 'number' && !isCalendarDate(value) ? 'must be a date yyyyMMdd' : undefined,
  // A UTC year outside 0000-9999 (an extreme offset) has no four-digit form.
  instant: (value) => {
    const inUtc = typeof value === 'string' ? utc(value) : undefined;
    return inUtc !== undefined && !/^\d{4}-/.test(inUtc)
      ? 'must fall within the years 0000 to 9999 in UTC'
      : undefined;
  },
};

/** How a record's value differs from the file's, by `$defs` entry: GUIDs lower, instants in UTC. */
const NORMALIZED: Readonly<Record<string, (value: string) => string>> = {
  guid: (value) => value.toLowerCase(),
  instant: (value) => utc(value) ?? value,
};

const DEFS = '#/$defs/';
const defs = SEED_FILE_SCHEMA.$defs as Readonly<Record<string, unknown>>;
const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Walks `value` along the schema `node`: runs the checks beyond the schema on every value of a
 * `$defs` entry that has them (each problem to `problems`, at its path), and returns the value as
 * the records hold it ({@link NORMALIZED}). Objects and arrays are changed in place.
 */
function walk(
  node: unknown,
  value: unknown,
  path: PathKey[],
  problems: (path: PathKey[], message: string) => void,
): unknown {
  if (!isObject(node)) return value;
  let result = value;
  const ref = typeof node.$ref === 'string' ? node.$ref : undefined;
  if (ref?.startsWith(DEFS)) {
    const name = ref.slice(DEFS.length);
    const problem = BEYOND_SCHEMA[name]?.(value);
    if (problem !== undefined) problems(path, problem);
    const normalize = NORMALIZED[name];
    if (normalize !== undefined && typeof value === 'string') result = normalize(value);
    result = walk(defs[name], result, path, problems);
  }
  if (Array.isArray(node.anyOf)) {
    const constant = node.anyOf.some((branch) => isObject(branch) && branch.const === value);
    if (!constant) {
      for (const branch of node.anyOf) result = walk(branch, result, path, problems);
    }
  }
  if (Array.isArray(result) && node.items !== undefined) {
    for (const [i, item] of result.entries()) {
      result[i] = walk(node.items, item, [...path, i], problems);
    }
  }
  if (isObject(result)) {
    const properties = isObject(node.properties) ? node.properties : {};
    for (const key of Object.keys(result)) {
      const child = Object.hasOwn(properties, key) ? properties[key] : node.additionalProperties;
      const next = walk(child, result[key], [...path, key], problems);
      if (next !== result[key]) result[key] = next;
    }
  }
  return result;
}

/** A record's deletion and dates as a seed file gives them (the dates may be left out). */
interface Dated {
  readonly deleted: boolean;
  readonly createdDate?: Instant;
  readonly modifiedDate?: Instant;
  readonly deletedDate?: Instant;
}

/** A seed file's entries as the schema has checked and the walk has normalized them. */
interface EntryDates extends Dated {
  /** The record's own type, which the file may state. */
  readonly entityType?: string;
}
type EmployeeEntry = Omit<EmployeeFields, 'version' | 'createdDate' | 'modifiedDate'> & EntryDates;
type ShiftEntry = Omit<ShiftFields, 'version' | 'createdDate' | 'modifiedDate'> & EntryDates;
/** A restaurant as the file has it: day schedules keyed by name, beside an `identifier`. */
type RestaurantEntry = Omit<Restaurant, 'schedules'> & {
  readonly schedules?: {
    readonly daySchedules?: Readonly<Record<string, DaySchedule | string>>;
    readonly weekSchedule?: Readonly<Partial<Record<Weekday, string>>>;
  };
};
interface SeedFile {
  readonly restaurants: readonly RestaurantEntry[];
  readonly employees: readonly EmployeeEntry[];
  readonly shifts: readonly ShiftEntry[];
  readonly clients: readonly SeedClient[];
}

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

/** A restaurant as the records hold it: its day schedules by key, the `identifier` apart. */
function restaurantRecord({ schedules, ...rest }: RestaurantEntry): Restaurant {
  if (schedules === undefined) return rest;
  const { daySchedules, ...other } = schedules;
  if (daySchedules === undefined) return { ...rest, schedules: other };
  const { identifier, ...byKey } = daySchedules;
  return {
    ...rest,
    schedules: {
      ...other,
      daySchedules: {
        ...(typeof identifier === 'string' ? { identifier } : {}),
        // Every entry but `identifier` is a day schedule (the schema says so).
        byKey: byKey as Record<string, DaySchedule>,
      },
    },
  };
}

function toRecords(seed: SeedFile, loadedAt: Instant): Seed {
  return {
    restaurants: seed.restaurants.map(restaurantRecord),
    employees: seed.employees.map(({ entityType: _type, ...entry }) => stamped(entry, loadedAt)),
    shifts: seed.shifts.map(({ entityType: _type, ...entry }) => stamped(entry, loadedAt)),
    clients: seed.clients,
  };
}

/**
 * Parses and validates a seed (the JSON of a seed file) into domain records, against the seed
 * file's schema ({@link SEED_FILE_SCHEMA}) and the rules beyond it. GUIDs come out in lower case,
 * dates in UTC with milliseconds; missing dates default to `loadedAt`; every record starts at
 * version 1. An employee or shift with `deleted: true` gets a `deletedDate`.
 *
 * @param json - the parsed JSON of the seed file
 * @param loadedAt - the load time, for missing dates
 * @returns the seed, or `SeedInvalid` naming every bad entry (then nothing should be loaded)
 * @example
 * ```ts
 * import { readFile } from 'node:fs/promises';
 *
 * const seed = parseSeed(JSON.parse(await readFile('seed.json', 'utf8')), new Date());
 * if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));
 * ```
 */
export function parseSeed(json: unknown, loadedAt: Date): Result<Seed, SeedInvalid> {
  const issues: SeedIssue[] = [];
  const said = new Set<string>();
  /** The entries with a problem of their own, as `employees/3`. */
  const bad = new Set<string>();
  // One issue per field: the first said (the schema's, before the checks beyond it).
  const add = (path: PathKey[], message: string) => {
    const issue = issueAt(json, path, message);
    const key = `${issue.entry} ${issue.field}`;
    if (said.has(key)) return;
    said.add(key);
    issues.push(issue);
    if (typeof path[0] === 'string' && typeof path[1] === 'number')
      bad.add(`${path[0]}/${path[1]}`);
  };
  let file: unknown;
  try {
    // A copy, for the defaults the validator fills in and the walk's normalizing.
    file = JSON.parse(JSON.stringify(json) ?? 'null');
  } catch (error) {
    add([], `is not JSON: ${(error as Error).message}`);
    return err({ type: 'SeedInvalid', issues });
  }
  const validate = validator();
  if (!validate(file)) {
    for (const error of saidErrors(validate.errors ?? [])) {
      add(errorPath(json, error), messageOf(error));
    }
  }
  if (!isObject(file)) return err({ type: 'SeedInvalid', issues });
  walk(SEED_FILE_SCHEMA, file, [], add);
  const collection = (name: Collection): unknown[] =>
    Array.isArray(file[name]) ? (file[name] as unknown[]) : [];
  collection('restaurants').forEach((restaurant, index) => {
    if (!isObject(restaurant) || !isObject(restaurant.schedules)) return;
    const { daySchedules = {}, weekSchedule } = restaurant.schedules;
    if (!isObject(daySchedules) || !isObject(weekSchedule)) return;
    for (const day of WEEKDAYS) {
      const key = weekSchedule[day];
      if (typeof key === 'string' && (!Object.hasOwn(daySchedules, key) || key === 'identifier')) {
        add(
          ['restaurants', index, 'schedules', 'weekSchedule', day],
          `names "${key}", which is not a key of daySchedules`,
        );
      }
    }
  });
  /** A collection's entries that no issue names: the schema accepted them, so they are of its type. */
  const accepted = <C extends Collection>(name: C): Located<SeedFile[C][number]>[] =>
    collection(name).flatMap((entry, index) =>
      bad.has(`${name}/${index}`) ? [] : [{ index, entry: entry as SeedFile[C][number] }],
    );
  const located: LocatedFile = {
    restaurants: accepted('restaurants'),
    employees: accepted('employees'),
    shifts: accepted('shifts'),
    clients: accepted('clients'),
  };
  // A restaurant counts as existing when its GUID is well-formed, whatever else is wrong with it.
  const restaurantGuids = new Set(
    collection('restaurants').flatMap((raw) => {
      const guid = isObject(raw) ? raw.guid : undefined;
      return typeof guid === 'string' && isGuid(guid) ? [guid.toLowerCase()] : [];
    }),
  );
  issues.push(...crossEntryIssues(json, located, restaurantGuids));
  if (issues.length > 0) return err({ type: 'SeedInvalid', issues });
  const entries = <C extends Collection>(name: C) => located[name].map(({ entry }) => entry);
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
