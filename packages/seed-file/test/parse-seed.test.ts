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
import {
  client,
  E1,
  E2,
  E3,
  employee,
  J1,
  type Json,
  LOADED,
  LOADED_AT,
  R1,
  R2,
  R3,
  refusals,
  restaurant,
  S1,
  S2,
  seedJson,
  seedWithRestaurant,
  shift,
} from './seed-cases.js';

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

describe('parseSeed refusals', () => {
  it.each([null, [], 'seed', 42, true])('refuses a seed that is not an object: %j', (json) => {
    expect(onlyIssue(json)).toEqual({ entry: 'seed', field: '', message: expect.any(String) });
  });

  it('refuses a value that is not JSON, rather than throwing', () => {
    expect(
      onlyIssue({ restaurants: [{ guid: R1, general: { name: 'A', closeoutHour: 4n } }] }),
    ).toEqual({
      entry: 'seed',
      field: '',
      message: expect.stringMatching(/^is not JSON: /),
    });
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
