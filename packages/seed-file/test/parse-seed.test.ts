import type { Guid } from '@workforce-kit/core';
import { aRestaurant, employeeArb, instantArb, shiftArb } from '@workforce-kit/core/testing';
import {
  formatSeedIssues,
  parseSeed,
  type Seed,
  type SeedInvalid,
  type SeedIssue,
} from '@workforce-kit/seed-file';
import { aSeed, seedToJson } from '@workforce-kit/seed-file/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seedArb } from './seed-arbitrary.js';

type Json = Record<string, unknown>;

const R1 = '0f8d1c2a-3b4c-4d5e-8f60-718293a4b5c6';
const R2 = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
/** A well-formed GUID of no seeded restaurant. */
const R3 = '9e9e9e9e-0000-4000-8000-000000000003';
const E1 = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
const E2 = '7b3cad5e-2f40-4b6c-9d8e-af10b2c3d4e5';
const E3 = '8c4dbe6f-3051-4c7d-ae9f-b021c3d4e5f6';
const S1 = 'c0ffee00-1111-4222-8333-444455556666';
const S2 = 'c0ffee00-1111-4222-8333-444455557777';
const J1 = 'b1e55ed0-aaaa-4bbb-8ccc-dddddddddddd';

const LOADED_AT = new Date('2026-04-01T08:30:00.000Z');
const LOADED = '2026-04-01T08:30:00.000Z';

const restaurant = (guid: string, extra: Json = {}): Json => ({
  guid,
  general: { name: 'Harbor Street Kitchen' },
  ...extra,
});
const employee = (guid: string, extra: Json = {}): Json => ({ restaurantGuid: R1, guid, ...extra });
const shift = (guid: string, extra: Json = {}): Json => ({ restaurantGuid: R1, guid, ...extra });
const client = (extra: Json = {}): Json => ({
  clientId: 'scheduler',
  clientSecret: 'correct-horse-battery-staple',
  scopes: ['labor.shifts:write'],
  restaurants: [R1],
  ...extra,
});

/** A seed file with two restaurants, R1 and R2, and the given entries. */
function seedJson(parts: Partial<Record<'employees' | 'shifts' | 'clients', Json[]>> = {}): Json {
  return { restaurants: [restaurant(R1), restaurant(R2)], ...parts };
}

/** A seed file with R1 (given extra fields) and R2. */
function seedWithRestaurant(extra: Json): Json {
  return { restaurants: [restaurant(R1, extra), restaurant(R2)] };
}

function parsed(json: unknown, loadedAt: Date = LOADED_AT): Seed {
  const result = parseSeed(json, loadedAt);
  if (result.isErr()) throw new Error(`seed refused:\n${formatSeedIssues(result.error)}`);
  return result.value;
}

function refused(json: unknown): SeedInvalid {
  const result = parseSeed(json, LOADED_AT);
  if (result.isOk()) throw new Error(`seed accepted: ${JSON.stringify(result.value)}`);
  return result.error;
}

function onlyIssue(json: unknown): SeedIssue {
  const { type, issues } = refused(json);
  expect(type).toBe('SeedInvalid');
  expect(issues).toHaveLength(1);
  const [issue] = issues;
  if (issue === undefined) throw new Error('no issue');
  return issue;
}

/** Every string of a JSON value mapped by `f`. */
function mapStrings(value: unknown, f: (text: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, f));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  }
  return value;
}

/**
 * A deep copy made of ordinary objects. `fc.record` may build objects without a prototype, which
 * `toStrictEqual` tells apart from the parser's plain objects although every field is equal.
 */
const plain = <T>(value: T): T => structuredClone(value);

/** `seedArb` takes some 30 ms a seed to generate: more than vitest's default 5 s for 100 runs. */
const SEED_PROPERTY_TIMEOUT = 60_000;

const GUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('parseSeed round trip', () => {
  // One property for both trips, over the same seeds: generating them is what takes the time.
  it(
    'parses what seedToJson writes back into the same seed, whatever the load time, also after a trip through JSON text',
    () => {
      fc.assert(
        fc.property(seedArb(), fc.date({ noInvalidDate: true }), (seed, loadedAt) => {
          const json = seedToJson(seed);
          expect(parsed(json, loadedAt)).toStrictEqual(plain(seed));
          const text: unknown = JSON.parse(JSON.stringify(json));
          expect(parsed(text, loadedAt)).toStrictEqual(plain(seed));
        }),
        { numRuns: 100 },
      );
    },
    SEED_PROPERTY_TIMEOUT,
  );

  it(
    'parses the same seed when every GUID is written in upper case',
    () => {
      fc.assert(
        fc.property(seedArb(), (seed) => {
          const shouted = mapStrings(seedToJson(seed), (text) =>
            GUID_SHAPE.test(text) ? text.toUpperCase() : text,
          );
          expect(parsed(shouted)).toStrictEqual(plain(seed));
        }),
        { numRuns: 50 },
      );
    },
    SEED_PROPERTY_TIMEOUT,
  );

  it('parses an empty object to an empty seed', () => {
    expect(parsed({})).toStrictEqual({ restaurants: [], employees: [], shifts: [], clients: [] });
  });
});

describe('parseSeed normalization', () => {
  it('lower-cases every GUID, and matches owners whatever their case', () => {
    const up = (guid: string) => guid.toUpperCase();
    const seed = parsed({
      restaurants: [
        restaurant(up(R1), { general: { name: 'A', managementGroupGuid: up(R3) } }),
        restaurant(R2),
      ],
      employees: [
        employee(up(E1), {
          restaurantGuid: R1,
          jobReferences: [{ guid: up(J1) }],
          wageOverrides: [{ jobReference: { guid: up(J1) }, wage: 20 }],
          v2EmployeeGuid: up(E2),
        }),
      ],
      shifts: [
        shift(up(S1), {
          restaurantGuid: up(R1),
          jobReference: { guid: up(J1) },
          employeeReference: { guid: up(E1) },
          scheduleConfig: { guid: up(S2) },
        }),
      ],
      clients: [client({ restaurants: [up(R1), R2] })],
    });
    expect(seed.restaurants[0]?.guid).toBe(R1);
    expect(seed.restaurants[0]?.general.managementGroupGuid).toBe(R3);
    expect(seed.employees[0]).toMatchObject({
      guid: E1,
      restaurantGuid: R1,
      jobReferences: [{ guid: J1 }],
      wageOverrides: [{ jobReference: { guid: J1 } }],
      v2EmployeeGuid: E2,
    });
    expect(seed.shifts[0]).toMatchObject({
      guid: S1,
      restaurantGuid: R1,
      jobReference: { guid: J1 },
      employeeReference: { guid: E1 },
      scheduleConfig: { guid: S2 },
    });
    expect(seed.clients[0]?.restaurants).toEqual([R1, R2]);
  });

  it.each([
    ['2026-03-01T19:00:00+02:00', '2026-03-01T17:00:00.000Z'],
    ['2026-03-01T19:00:00-05:30', '2026-03-02T00:30:00.000Z'],
    ['2026-03-01T00:30:00+01:00', '2026-02-28T23:30:00.000Z'],
    ['2026-03-01T17:00:00Z', '2026-03-01T17:00:00.000Z'],
    ['2026-03-01T17:00:00.5Z', '2026-03-01T17:00:00.500Z'],
    ['2026-03-01T17:00:00.123+00:00', '2026-03-01T17:00:00.123Z'],
  ])('writes %s as %s', (input, utc) => {
    const seed = parsed(
      seedJson({
        employees: [
          employee(E1, {
            createdDate: input,
            modifiedDate: input,
            deleted: true,
            deletedDate: input,
          }),
        ],
        shifts: [shift(S1, { inDate: input, outDate: input, createdDate: input })],
      }),
    );
    expect(seed.employees[0]).toMatchObject({
      createdDate: utc,
      modifiedDate: utc,
      deletedDate: utc,
    });
    expect(seed.shifts[0]).toMatchObject({ inDate: utc, outDate: utc, createdDate: utc });
  });

  it('writes any instant given with any offset as the same instant in UTC', () => {
    const offsetArb = fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 });
    fc.assert(
      fc.property(instantArb, offsetArb, (instant, offset) => {
        const local = new Date(Date.parse(instant) + offset * 60_000).toISOString().slice(0, -1);
        const hhmm = `${String(Math.trunc(Math.abs(offset) / 60)).padStart(2, '0')}:${String(Math.abs(offset) % 60).padStart(2, '0')}`;
        const withOffset = `${local}${offset < 0 ? '-' : '+'}${hhmm}`;
        const seed = parsed(seedJson({ shifts: [shift(S1, { inDate: withOffset })] }));
        expect(seed.shifts[0]?.inDate).toBe(instant);
      }),
      { numRuns: 500 },
    );
  });

  it('dates a record without dates at the load time, at version 1, not deleted', () => {
    const seed = parsed(seedJson({ employees: [employee(E1)], shifts: [shift(S1)] }));
    for (const record of [seed.employees[0], seed.shifts[0]]) {
      expect(record).toStrictEqual({
        restaurantGuid: R1,
        guid: record?.guid,
        version: 1,
        createdDate: LOADED,
        modifiedDate: LOADED,
        deleted: false,
      });
    }
  });

  it('fills in only the dates that are missing', () => {
    fc.assert(
      fc.property(
        employeeArb(R1 as Guid),
        shiftArb(R1 as Guid),
        fc.date({ noInvalidDate: true }),
        fc.constantFrom('createdDate', 'modifiedDate', 'deletedDate'),
        (anEmployee, aShift, loadedAt, dropped) => {
          const strip = (record: Json): Json => {
            const { version: _version, [dropped]: _dropped, ...rest } = record;
            return rest;
          };
          const seed = parsed(
            {
              restaurants: [restaurant(R1)],
              employees: [strip({ ...anEmployee })],
              shifts: [strip({ ...aShift })],
            },
            loadedAt,
          );
          const fill = <T extends { deleted: boolean }>(record: T): T =>
            plain(
              dropped === 'deletedDate' && !record.deleted
                ? { ...record, version: 1 }
                : { ...record, version: 1, [dropped]: loadedAt.toISOString() },
            );
          expect(seed.employees[0]).toStrictEqual(fill(anEmployee));
          expect(seed.shifts[0]).toStrictEqual(fill(aShift));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives a deleted record without deletedDate the load time, and keeps a given one', () => {
    const seed = parsed(
      seedJson({
        employees: [
          employee(E1, { deleted: true }),
          employee(E2, { deleted: true, deletedDate: '2026-02-01T12:00:00Z' }),
        ],
        shifts: [shift(S1, { deleted: true })],
      }),
    );
    expect(seed.employees[0]?.deletedDate).toBe(LOADED);
    expect(seed.employees[1]?.deletedDate).toBe('2026-02-01T12:00:00.000Z');
    expect(seed.shifts[0]?.deletedDate).toBe(LOADED);
  });

  it('defaults deleted to false, with no deletedDate', () => {
    const seed = parsed(seedJson({ employees: [employee(E1)], shifts: [shift(S1)] }));
    expect(seed.employees[0]?.deleted).toBe(false);
    expect(seed.employees[0]).not.toHaveProperty('deletedDate');
    expect(seed.shifts[0]?.deleted).toBe(false);
    expect(seed.shifts[0]).not.toHaveProperty('deletedDate');
  });

  it('defaults the entity types of references and keeps the given ones', () => {
    const seed = parsed(
      seedJson({
        employees: [
          employee(E1, {
            jobReferences: [{ guid: J1 }, { guid: J1, entityType: 'Custom', externalId: 'POS:1' }],
            wageOverrides: [{ jobReference: { guid: J1 }, wage: 0 }],
          }),
        ],
        shifts: [shift(S1, { jobReference: { guid: J1 }, employeeReference: { guid: E1 } })],
      }),
    );
    expect(seed.employees[0]?.jobReferences).toStrictEqual([
      { guid: J1, entityType: 'RestaurantJob' },
      { guid: J1, entityType: 'Custom', externalId: 'POS:1' },
    ]);
    expect(seed.employees[0]?.wageOverrides).toStrictEqual([
      { jobReference: { guid: J1, entityType: 'RestaurantJob' }, wage: 0 },
    ]);
    expect(seed.shifts[0]?.jobReference).toStrictEqual({ guid: J1, entityType: 'RestaurantJob' });
    expect(seed.shifts[0]?.employeeReference).toStrictEqual({
      guid: E1,
      entityType: 'RestaurantUser',
    });
  });

  it("accepts the record's own entity type and leaves it out of the record", () => {
    const seed = parsed(
      seedJson({
        employees: [employee(E1, { entityType: 'RestaurantUser' })],
        shifts: [shift(S1, { entityType: 'Shift' })],
      }),
    );
    expect(seed.employees[0]).not.toHaveProperty('entityType');
    expect(seed.shifts[0]).not.toHaveProperty('entityType');
  });

  it('maps daySchedules to byKey, with the identifier entry apart', () => {
    const weekday = {
      scheduleName: 'Weekday',
      openTime: '11:00:00.000',
      closeTime: '23:00:00.000',
    };
    const withIdentifier = parsed(
      seedWithRestaurant({
        schedules: {
          daySchedules: { identifier: 'hsk-2026-spring', weekday },
          weekSchedule: { monday: 'weekday' },
        },
      }),
    );
    expect(withIdentifier.restaurants[0]?.schedules).toStrictEqual({
      daySchedules: { identifier: 'hsk-2026-spring', byKey: { weekday } },
      weekSchedule: { monday: 'weekday' },
    });
    const without = parsed(seedWithRestaurant({ schedules: { daySchedules: { weekday } } }));
    expect(without.restaurants[0]?.schedules).toStrictEqual({
      daySchedules: { byKey: { weekday } },
    });
  });

  it('defaults a restaurant to not archived', () => {
    expect(parsed(seedJson()).restaurants[0]?.general.archived).toBe(false);
  });

  it.each([
    ['closeoutHour 0', { general: { name: 'A', closeoutHour: 0 } }],
    ['closeoutHour 23', { general: { name: 'A', closeoutHour: 23 } }],
    ['a leap day as firstBusinessDate', { general: { name: 'A', firstBusinessDate: 20240229 } }],
    ['currency JPY', { general: { name: 'A', currencyCode: 'JPY' } }],
    ['time zone UTC', { general: { name: 'A', timeZone: 'UTC' } }],
    ['an http URL', { urls: { website: 'http://harbor.example.com/' } }],
    ['a closed day (absent from weekSchedule)', { schedules: { weekSchedule: {} } }],
  ])('accepts %s', (_, extra) => {
    expect(parsed(seedWithRestaurant(extra)).restaurants[0]).toMatchObject(extra);
  });

  it("accepts '*' and seeded restaurants as a client's restaurants", () => {
    const seed = parsed(
      seedJson({
        clients: [client({ restaurants: ['*'] }), client({ clientId: 'b', restaurants: [R1, R2] })],
      }),
    );
    expect(seed.clients.map((c) => c.restaurants)).toEqual([['*'], [R1, R2]]);
  });

  it('accepts the same external id in two restaurants', () => {
    const seed = parsed(
      seedJson({
        employees: [
          employee(E1, { externalId: 'HR:42' }),
          employee(E2, { restaurantGuid: R2, externalId: 'HR:42' }),
        ],
        shifts: [
          shift(S1, { externalId: 'SCHED:1' }),
          shift(S2, { restaurantGuid: R2, externalId: 'SCHED:1' }),
        ],
      }),
    );
    expect(seed.employees).toHaveLength(2);
    expect(seed.shifts.map((s) => s.externalId)).toEqual(['SCHED:1', 'SCHED:1']);
  });
});

interface RefusalCase {
  readonly name: string;
  readonly json: unknown;
  readonly entry: string;
  readonly field: string;
  readonly message: RegExp;
}

const refusals: readonly RefusalCase[] = [
  // The file and its collections
  {
    name: 'an unknown top-level key',
    json: { ...seedJson(), staff: [] },
    entry: 'seed',
    field: '',
    message: /staff/,
  },
  {
    name: 'a collection that is not an array',
    json: { employees: { [E1]: employee(E1) } },
    entry: 'seed',
    field: 'employees',
    message: /array/,
  },
  {
    name: 'an entry that is not an object',
    json: seedJson({ employees: [employee(E1), E2 as unknown as Json] }),
    entry: 'employees[1]',
    field: '',
    message: /object/,
  },
  // Unknown fields (every entry is strict)
  {
    name: 'an unknown field in an employee',
    json: seedJson({ employees: [employee(E1), employee(E2, { nickname: 'Mo' })] }),
    entry: `employees[1] (${E2})`,
    field: '',
    message: /nickname/,
  },
  {
    name: 'an unknown field in a shift reference',
    json: seedJson({ shifts: [shift(S1, { jobReference: { guid: J1, title: 'Cook' } })] }),
    entry: `shifts[0] (${S1})`,
    field: 'jobReference',
    message: /title/,
  },
  {
    name: "an unknown field in a restaurant's general section",
    json: seedWithRestaurant({ general: { name: 'A', owner: 'Ana' } }),
    entry: `restaurants[0] (${R1})`,
    field: 'general',
    message: /owner/,
  },
  {
    name: 'an unknown field in a client',
    json: seedJson({ clients: [client({ role: 'admin' })] }),
    entry: 'clients[0] (scheduler)',
    field: '',
    message: /role/,
  },
  {
    name: 'a restaurant without a name',
    json: { restaurants: [{ guid: R1, general: { name: '' } }] },
    entry: `restaurants[0] (${R1})`,
    field: 'general.name',
    message: /empty/,
  },
  // GUIDs and external ids
  {
    name: 'an employee GUID that is not a GUID',
    json: seedJson({ employees: [employee(E1), employee(`{${E2}}`)] }),
    entry: `employees[1] ({${E2}})`,
    field: 'guid',
    message: /platform GUID/,
  },
  {
    name: 'a job reference GUID that is not a GUID',
    json: seedJson({
      employees: [employee(E1, { jobReferences: [{ guid: J1 }, { guid: 'line-cook' }] })],
    }),
    entry: `employees[0] (${E1})`,
    field: 'jobReferences[1].guid',
    message: /platform GUID/,
  },
  {
    name: 'a restaurant GUID that is not a GUID',
    json: { restaurants: [restaurant(R1), restaurant('R2')] },
    entry: 'restaurants[1] (R2)',
    field: 'guid',
    message: /platform GUID/,
  },
  {
    name: 'a shift external id without a naming authority',
    json: seedJson({ shifts: [shift(S1, { externalId: 'shift-42' })] }),
    entry: `shifts[0] (${S1})`,
    field: 'externalId',
    message: /external identifier/,
  },
  {
    name: 'a job reference external id with a space',
    json: seedJson({
      employees: [employee(E1, { jobReferences: [{ guid: J1, externalId: 'POS:line cook' }] })],
    }),
    entry: `employees[0] (${E1})`,
    field: 'jobReferences[0].externalId',
    message: /external identifier/,
  },
  // Dates
  {
    name: 'a date without a time',
    json: seedJson({ employees: [employee(E1, { createdDate: '2026-03-01' })] }),
    entry: `employees[0] (${E1})`,
    field: 'createdDate',
    message: /ISO 8601/,
  },
  {
    name: 'a date-time without a time zone',
    json: seedJson({ shifts: [shift(S1, { inDate: '2026-03-01T19:00:00' })] }),
    entry: `shifts[0] (${S1})`,
    field: 'inDate',
    message: /ISO 8601/,
  },
  {
    name: 'a date that does not exist',
    json: seedJson({ shifts: [shift(S1, { outDate: '2026-02-30T19:00:00Z' })] }),
    entry: `shifts[0] (${S1})`,
    field: 'outDate',
    message: /ISO 8601/,
  },
  {
    name: 'a date that is not a string',
    json: seedJson({ employees: [employee(E1, { modifiedDate: 1772384400000 })] }),
    entry: `employees[0] (${E1})`,
    field: 'modifiedDate',
    message: /./,
  },
  {
    name: 'a deletedDate on an employee with deleted: false',
    json: seedJson({
      employees: [
        employee(E1),
        employee(E2, { deleted: false, deletedDate: '2026-02-01T12:00:00.000Z' }),
      ],
    }),
    entry: `employees[1] (${E2})`,
    field: 'deletedDate',
    message: /absent when deleted is false/,
  },
  {
    name: 'a deletedDate on a shift without deleted',
    json: seedJson({ shifts: [shift(S1, { deletedDate: '2026-02-01T12:00:00.000Z' })] }),
    entry: `shifts[0] (${S1})`,
    field: 'deletedDate',
    message: /absent when deleted is false/,
  },
  // Uniqueness and owners
  {
    name: 'a duplicate employee GUID',
    json: seedJson({
      employees: [employee(E1), employee(E2), employee(E1, { restaurantGuid: R2 })],
    }),
    entry: `employees[2] (${E1})`,
    field: 'guid',
    message: /duplicate/,
  },
  {
    name: 'a duplicate employee GUID in another letter case',
    json: seedJson({ employees: [employee(E1), employee(E1.toUpperCase())] }),
    entry: `employees[1] (${E1.toUpperCase()})`,
    field: 'guid',
    message: /duplicate/,
  },
  {
    name: 'a duplicate restaurant GUID',
    json: { restaurants: [restaurant(R1), restaurant(R2), restaurant(R1)] },
    entry: `restaurants[2] (${R1})`,
    field: 'guid',
    message: /duplicate/,
  },
  {
    name: 'a duplicate shift external id within one restaurant',
    json: seedJson({
      shifts: [shift(S1, { externalId: 'SCHED:1' }), shift(S2, { externalId: 'SCHED:1' })],
    }),
    entry: `shifts[1] (${S2})`,
    field: 'externalId',
    message: /duplicate within its restaurant/,
  },
  {
    name: 'a duplicate employee external id within one restaurant',
    json: seedJson({
      employees: [employee(E1, { externalId: 'HR:7' }), employee(E2, { externalId: 'HR:7' })],
    }),
    entry: `employees[1] (${E2})`,
    field: 'externalId',
    message: /duplicate within its restaurant/,
  },
  {
    name: 'an employee of a restaurant that is not seeded',
    json: seedJson({ employees: [employee(E1), employee(E2, { restaurantGuid: R3 })] }),
    entry: `employees[1] (${E2})`,
    field: 'restaurantGuid',
    message: /names no restaurant/,
  },
  {
    name: 'a shift of a restaurant that is not seeded',
    json: seedJson({ shifts: [shift(S1, { restaurantGuid: R3 })] }),
    entry: `shifts[0] (${S1})`,
    field: 'restaurantGuid',
    message: /names no restaurant/,
  },
  // Numbers
  {
    name: 'a negative wage',
    json: seedJson({
      employees: [employee(E1, { wageOverrides: [{ jobReference: { guid: J1 }, wage: -0.01 }] })],
    }),
    entry: `employees[0] (${E1})`,
    field: 'wageOverrides[0].wage',
    message: /negative/,
  },
  {
    name: 'scheduleConfig minutes that are not a whole number',
    json: seedJson({ shifts: [shift(S1, { scheduleConfig: { minBeforeClockIn: 1.5 } })] }),
    entry: `shifts[0] (${S1})`,
    field: 'scheduleConfig.minBeforeClockIn',
    message: /whole number/,
  },
  {
    name: 'negative scheduleConfig minutes',
    json: seedJson({ shifts: [shift(S1, { scheduleConfig: { minAfterClockOut: -1 } })] }),
    entry: `shifts[0] (${S1})`,
    field: 'scheduleConfig.minAfterClockOut',
    message: /negative/,
  },
  {
    name: 'an employee entityType other than RestaurantUser',
    json: seedJson({ employees: [employee(E1, { entityType: 'Employee' })] }),
    entry: `employees[0] (${E1})`,
    field: 'entityType',
    message: /RestaurantUser/,
  },
  {
    name: 'a shift entityType other than Shift',
    json: seedJson({ shifts: [shift(S1, { entityType: 'RestaurantUser' })] }),
    entry: `shifts[0] (${S1})`,
    field: 'entityType',
    message: /Shift/,
  },
  // Clients
  {
    name: 'an unknown scope',
    json: seedJson({ clients: [client({ scopes: ['labor.shifts:write', 'labor.shifts:read'] })] }),
    entry: 'clients[0] (scheduler)',
    field: 'scopes[1]',
    message: /must be one of/,
  },
  {
    name: 'a client without scopes',
    json: seedJson({ clients: [client({ scopes: [] })] }),
    entry: 'clients[0] (scheduler)',
    field: 'scopes',
    message: /must name a scope/,
  },
  {
    name: 'a client restaurant that is not seeded',
    json: seedJson({ clients: [client({ restaurants: [R1, R3] })] }),
    entry: 'clients[0] (scheduler)',
    field: 'restaurants[1]',
    message: /names no restaurant/,
  },
  {
    name: "a client restaurant that is neither a GUID nor '*'",
    json: seedJson({ clients: [client({ restaurants: ['all'] })] }),
    entry: 'clients[0] (scheduler)',
    field: 'restaurants[0]',
    message: /restaurant GUID or "\*"/,
  },
  {
    name: 'a duplicate clientId',
    json: seedJson({ clients: [client(), client({ clientSecret: 'other' })] }),
    entry: 'clients[1] (scheduler)',
    field: 'clientId',
    message: /duplicate/,
  },
  // Restaurants
  {
    name: 'a weekSchedule day naming a missing daySchedules key',
    json: seedWithRestaurant({
      schedules: {
        daySchedules: { weekday: { openTime: '11:00:00.000' } },
        weekSchedule: { monday: 'weekday', sunday: 'weekend' },
      },
    }),
    entry: `restaurants[0] (${R1})`,
    field: 'schedules.weekSchedule.sunday',
    message: /"weekend".*not a key of daySchedules/,
  },
  {
    name: 'a weekSchedule day without any daySchedules',
    json: seedWithRestaurant({ schedules: { weekSchedule: { friday: 'weekday' } } }),
    entry: `restaurants[0] (${R1})`,
    field: 'schedules.weekSchedule.friday',
    message: /not a key of daySchedules/,
  },
  {
    name: 'a weekSchedule key that is not a weekday',
    json: seedWithRestaurant({ schedules: { weekSchedule: { funday: 'weekday' } } }),
    entry: `restaurants[0] (${R1})`,
    field: 'schedules.weekSchedule',
    message: /funday/,
  },
  {
    name: 'a day schedule time not in HH:mm:ss.SSS',
    json: seedWithRestaurant({ schedules: { daySchedules: { weekday: { openTime: '11:00' } } } }),
    entry: `restaurants[0] (${R1})`,
    field: 'schedules.daySchedules.weekday.openTime',
    message: /HH:mm:ss\.SSS/,
  },
  ...(['a list', ['weekday'], null, 'weekday'] as const).map((value) => ({
    name: `daySchedules that is ${JSON.stringify(value)}, not an object`,
    json: seedWithRestaurant({ schedules: { daySchedules: value } }),
    entry: `restaurants[0] (${R1})`,
    field: 'schedules.daySchedules',
    message: /must be an object of day schedules/,
  })),
  {
    name: 'a daySchedules identifier that is not a string',
    json: seedWithRestaurant({ schedules: { daySchedules: { identifier: 7 } } }),
    entry: `restaurants[0] (${R1})`,
    field: 'schedules.daySchedules.identifier',
    message: /string/,
  },
  {
    name: 'an invalid time zone',
    json: seedWithRestaurant({ general: { name: 'A', timeZone: 'Mars/Olympus_Mons' } }),
    entry: `restaurants[0] (${R1})`,
    field: 'general.timeZone',
    message: /IANA/,
  },
  {
    name: 'currency XXQ',
    json: seedWithRestaurant({ general: { name: 'A', currencyCode: 'XXQ' } }),
    entry: `restaurants[0] (${R1})`,
    field: 'general.currencyCode',
    message: /ISO 4217/,
  },
  {
    name: 'a lower-case currency code',
    json: seedWithRestaurant({ general: { name: 'A', currencyCode: 'usd' } }),
    entry: `restaurants[0] (${R1})`,
    field: 'general.currencyCode',
    message: /ISO 4217/,
  },
  {
    name: 'firstBusinessDate 20260230',
    json: seedWithRestaurant({ general: { name: 'A', firstBusinessDate: 20260230 } }),
    entry: `restaurants[0] (${R1})`,
    field: 'general.firstBusinessDate',
    message: /yyyyMMdd/,
  },
  {
    name: 'firstBusinessDate 20250229 (not a leap year)',
    json: seedWithRestaurant({ general: { name: 'A', firstBusinessDate: 20250229 } }),
    entry: `restaurants[0] (${R1})`,
    field: 'general.firstBusinessDate',
    message: /yyyyMMdd/,
  },
  {
    name: 'closeoutHour 24',
    json: seedWithRestaurant({ general: { name: 'A', closeoutHour: 24 } }),
    entry: `restaurants[0] (${R1})`,
    field: 'general.closeoutHour',
    message: /0 to 23/,
  },
  {
    name: 'an ftp URL',
    json: seedWithRestaurant({ urls: { website: 'ftp://files.example.com/menu.pdf' } }),
    entry: `restaurants[0] (${R1})`,
    field: 'urls.website',
    message: /http\(s\) URL/,
  },
  {
    name: 'a javascript: URL',
    json: seedWithRestaurant({ urls: { orderOnline: 'javascript:alert(1)' } }),
    entry: `restaurants[0] (${R1})`,
    field: 'urls.orderOnline',
    message: /http\(s\) URL/,
  },
];

describe('parseSeed refusals', () => {
  it.each([null, [], 'seed', 42, true])('refuses a seed that is not an object: %j', (json) => {
    expect(onlyIssue(json)).toEqual({ entry: 'seed', field: '', message: expect.any(String) });
  });

  it.each(refusals)(
    'refuses $name, naming the entry and field',
    ({ json, entry, field, message }) => {
      expect(onlyIssue(json)).toEqual({ entry, field, message: expect.stringMatching(message) });
    },
  );

  it('lists both of two bad entries', () => {
    const { type, issues } = refused(
      seedJson({
        employees: [employee('not-a-guid'), employee(E2)],
        shifts: [shift(S1), shift(S2, { inDate: 'tomorrow' })],
      }),
    );
    expect(type).toBe('SeedInvalid');
    expect(issues).toHaveLength(2);
    expect(issues).toEqual(
      expect.arrayContaining([
        { entry: 'employees[0] (not-a-guid)', field: 'guid', message: expect.any(String) },
        { entry: `shifts[1] (${S2})`, field: 'inDate', message: expect.any(String) },
      ]),
    );
  });

  it('lists every rule across entries that is broken', () => {
    const { issues } = refused(
      seedJson({
        employees: [employee(E1), employee(E1), employee(E3, { restaurantGuid: R3 })],
        clients: [client({ restaurants: [R3] })],
      }),
    );
    expect(issues).toHaveLength(3);
    expect(issues).toEqual(
      expect.arrayContaining([
        { entry: `employees[1] (${E1})`, field: 'guid', message: expect.any(String) },
        { entry: `employees[2] (${E3})`, field: 'restaurantGuid', message: expect.any(String) },
        { entry: 'clients[0] (scheduler)', field: 'restaurants[0]', message: expect.any(String) },
      ]),
    );
  });

  it('lists every bad field of one entry', () => {
    const { issues } = refused(
      seedWithRestaurant({
        general: { name: 'A', timeZone: 'Nowhere', closeoutHour: 24, currencyCode: 'XXQ' },
      }),
    );
    expect(issues.map((issue) => issue.field).sort()).toEqual([
      'general.closeoutHour',
      'general.currencyCode',
      'general.timeZone',
    ]);
  });

  it('names exactly the entries that are bad, wherever they are', () => {
    const employeesArb = fc.uniqueArray(employeeArb(R1 as Guid), {
      minLength: 1,
      maxLength: 6,
      selector: (e) => e.guid,
    });
    fc.assert(
      fc.property(
        employeesArb.chain((employees) =>
          fc.tuple(
            fc.constant(employees),
            fc.uniqueArray(fc.nat({ max: employees.length - 1 }), { minLength: 1 }),
          ),
        ),
        fc.constantFrom<[string, unknown]>(
          ['guid', 'nope'],
          ['createdDate', 'yesterday'],
          ['externalId', 'no-authority'],
          ['deleted', 'yes'],
        ),
        ([employees, bad], [field, value]) => {
          const json = seedToJson(
            aSeed({ restaurants: [aRestaurant({ guid: R1 as Guid })], employees }),
          ) as { employees: Json[] };
          for (const index of bad) {
            const entry = json.employees[index];
            if (entry !== undefined) entry[field] = value;
          }
          const { issues } = refused(json);
          expect(issues.map((issue) => issue.entry).sort()).toEqual(
            bad
              .map((index) => {
                const guid = field === 'guid' ? value : employees[index]?.guid;
                return `employees[${index}] (${String(guid)})`;
              })
              .sort(),
          );
          expect(issues.every((issue) => issue.field === field)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('formatSeedIssues', () => {
  it('writes one line per issue: entry, field when there is one, and message', () => {
    const invalid: SeedInvalid = {
      type: 'SeedInvalid',
      issues: [
        {
          entry: `employees[3] (${E1})`,
          field: 'jobReferences[0].guid',
          message: 'must be a GUID',
        },
        { entry: 'seed', field: '', message: 'Unrecognized key: "staff"' },
        { entry: 'clients[0] (scheduler)', field: 'scopes', message: 'must name a scope' },
      ],
    };
    expect(formatSeedIssues(invalid)).toBe(
      [
        `employees[3] (${E1}) jobReferences[0].guid: must be a GUID`,
        'seed: Unrecognized key: "staff"',
        'clients[0] (scheduler) scopes: must name a scope',
      ].join('\n'),
    );
  });

  it('names the entry and field of every issue of a refused seed, one per line', () => {
    const invalid = refused(
      seedJson({
        employees: [employee(E1, { wageOverrides: [{ jobReference: { guid: J1 }, wage: -1 }] })],
        shifts: [shift(S1, { scheduleConfig: { minBeforeClockIn: 0.5 } }), shift('S2')],
        clients: [client({ scopes: ['root'] })],
      }),
    );
    const lines = formatSeedIssues(invalid).split('\n');
    expect(lines).toHaveLength(invalid.issues.length);
    expect(lines).toHaveLength(4);
    invalid.issues.forEach((issue, i) => {
      expect(lines[i]).toBe(`${issue.entry} ${issue.field}: ${issue.message}`);
    });
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^employees\[0\] \(6a2b9c4d-[^)]+\) wageOverrides\[0\]\.wage: /),
        expect.stringMatching(/^shifts\[0\] \(c0ffee00-[^)]+\) scheduleConfig\.minBeforeClockIn: /),
        expect.stringMatching(/^shifts\[1\] \(S2\) guid: /),
        expect.stringMatching(/^clients\[0\] \(scheduler\) scopes\[0\]: /),
      ]),
    );
  });

  it('gives an empty string for no issues', () => {
    expect(formatSeedIssues({ type: 'SeedInvalid', issues: [] })).toBe('');
  });
});

describe('regressions', () => {
  it('refuses a week day naming an inherited object property instead of a day schedule key', () => {
    for (const name of ['toString', 'constructor', 'hasOwnProperty', '__proto__']) {
      const issue = onlyIssue(
        seedWithRestaurant({ schedules: { weekSchedule: { monday: name } } }),
      );
      expect(issue).toMatchObject({
        entry: `restaurants[0] (${R1})`,
        field: 'schedules.weekSchedule.monday',
      });
    }
  });

  it('refuses a day schedule keyed __proto__ rather than dropping it', () => {
    const json = JSON.parse(
      `{"restaurants":[{"guid":"${R1}","general":{"name":"x"},"schedules":{"daySchedules":{"__proto__":{"scheduleName":"Sneaky"}}}}]}`,
    );
    expect(onlyIssue(json)).toMatchObject({ field: 'schedules.daySchedules.__proto__' });
  });

  it('names every bad entry, of whatever kind, together', () => {
    const { issues } = refused(
      seedJson({
        employees: [employee('bad')],
        shifts: [shift(S1), shift(S1)],
        clients: [client({ restaurants: [R3] })],
      }),
    );
    expect(issues.map((issue) => issue.entry)).toEqual([
      'employees[0] (bad)',
      `shifts[1] (${S1})`,
      'clients[0] (scheduler)',
    ]);
  });

  it('does not blame the employees of a restaurant whose own entry is bad', () => {
    const { issues } = refused({
      restaurants: [restaurant(R1, { general: { name: '' } })],
      employees: [employee(E1)],
    });
    expect(issues.map((issue) => issue.entry)).toEqual([`restaurants[0] (${R1})`]);
  });

  it('refuses dates whose UTC year has no four-digit form', () => {
    for (const date of ['0000-01-01T00:00:00+01:00', '9999-12-31T23:59:59-01:00']) {
      expect(onlyIssue(seedJson({ employees: [employee(E1, { createdDate: date })] })).field).toBe(
        'createdDate',
      );
    }
  });
});
