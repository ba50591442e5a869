// The seeds the parser tests and the schema tests share: the restaurants, records and clients they
// build seed files from, and the seed files the parser refuses, each with the entry, field and
// message it must name.

export type Json = Record<string, unknown>;

export const R1 = '0f8d1c2a-3b4c-4d5e-8f60-718293a4b5c6';
export const R2 = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
/** A well-formed GUID of no seeded restaurant. */
export const R3 = '9e9e9e9e-0000-4000-8000-000000000003';
export const E1 = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
export const E2 = '7b3cad5e-2f40-4b6c-9d8e-af10b2c3d4e5';
export const E3 = '8c4dbe6f-3051-4c7d-ae9f-b021c3d4e5f6';
export const S1 = 'c0ffee00-1111-4222-8333-444455556666';
export const S2 = 'c0ffee00-1111-4222-8333-444455557777';
export const J1 = 'b1e55ed0-aaaa-4bbb-8ccc-dddddddddddd';

export const LOADED_AT = new Date('2026-04-01T08:30:00.000Z');
export const LOADED = '2026-04-01T08:30:00.000Z';

export const restaurant = (guid: string, extra: Json = {}): Json => ({
  guid,
  general: { name: 'Harbor Street Kitchen' },
  ...extra,
});
export const employee = (guid: string, extra: Json = {}): Json => ({
  restaurantGuid: R1,
  guid,
  ...extra,
});
export const shift = (guid: string, extra: Json = {}): Json => ({
  restaurantGuid: R1,
  guid,
  ...extra,
});
export const client = (extra: Json = {}): Json => ({
  clientId: 'scheduler',
  clientSecret: 'correct-horse-battery-staple',
  scopes: ['labor.shifts:write'],
  restaurants: [R1],
  ...extra,
});

/** A seed file with two restaurants, R1 and R2, and the given entries. */
export function seedJson(
  parts: Partial<Record<'employees' | 'shifts' | 'clients', Json[]>> = {},
): Json {
  return { restaurants: [restaurant(R1), restaurant(R2)], ...parts };
}

/** A seed file with R1 (given extra fields) and R2. */
export function seedWithRestaurant(extra: Json): Json {
  return { restaurants: [restaurant(R1, extra), restaurant(R2)] };
}

export interface RefusalCase {
  readonly name: string;
  readonly json: unknown;
  readonly entry: string;
  readonly field: string;
  readonly message: RegExp;
  /**
   * Refused by a rule the schema cannot state (the schema's description lists them): the schema
   * accepts the file.
   */
  readonly beyondSchema?: true;
}

export const refusals: readonly RefusalCase[] = [
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
    beyondSchema: true,
    json: seedJson({
      employees: [employee(E1), employee(E2), employee(E1, { restaurantGuid: R2 })],
    }),
    entry: `employees[2] (${E1})`,
    field: 'guid',
    message: /duplicate/,
  },
  {
    name: 'a duplicate employee GUID in another letter case',
    beyondSchema: true,
    json: seedJson({ employees: [employee(E1), employee(E1.toUpperCase())] }),
    entry: `employees[1] (${E1.toUpperCase()})`,
    field: 'guid',
    message: /duplicate/,
  },
  {
    name: 'a duplicate restaurant GUID',
    beyondSchema: true,
    json: { restaurants: [restaurant(R1), restaurant(R2), restaurant(R1)] },
    entry: `restaurants[2] (${R1})`,
    field: 'guid',
    message: /duplicate/,
  },
  {
    name: 'a duplicate shift external id within one restaurant',
    beyondSchema: true,
    json: seedJson({
      shifts: [shift(S1, { externalId: 'SCHED:1' }), shift(S2, { externalId: 'SCHED:1' })],
    }),
    entry: `shifts[1] (${S2})`,
    field: 'externalId',
    message: /duplicate within its restaurant/,
  },
  {
    name: 'a duplicate employee external id within one restaurant',
    beyondSchema: true,
    json: seedJson({
      employees: [employee(E1, { externalId: 'HR:7' }), employee(E2, { externalId: 'HR:7' })],
    }),
    entry: `employees[1] (${E2})`,
    field: 'externalId',
    message: /duplicate within its restaurant/,
  },
  {
    name: 'an employee of a restaurant that is not seeded',
    beyondSchema: true,
    json: seedJson({ employees: [employee(E1), employee(E2, { restaurantGuid: R3 })] }),
    entry: `employees[1] (${E2})`,
    field: 'restaurantGuid',
    message: /names no restaurant/,
  },
  {
    name: 'a shift of a restaurant that is not seeded',
    beyondSchema: true,
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
    message: /names a scope/,
  },
  {
    name: 'a client restaurant that is not seeded',
    beyondSchema: true,
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
    beyondSchema: true,
    json: seedJson({ clients: [client(), client({ clientSecret: 'other' })] }),
    entry: 'clients[1] (scheduler)',
    field: 'clientId',
    message: /duplicate/,
  },
  // Restaurants
  {
    name: 'a weekSchedule day naming a missing daySchedules key',
    beyondSchema: true,
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
    beyondSchema: true,
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
    beyondSchema: true,
    json: seedWithRestaurant({ general: { name: 'A', timeZone: 'Mars/Olympus_Mons' } }),
    entry: `restaurants[0] (${R1})`,
    field: 'general.timeZone',
    message: /IANA/,
  },
  {
    name: 'currency XXQ',
    beyondSchema: true,
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
    beyondSchema: true,
    json: seedWithRestaurant({ general: { name: 'A', firstBusinessDate: 20260230 } }),
    entry: `restaurants[0] (${R1})`,
    field: 'general.firstBusinessDate',
    message: /yyyyMMdd/,
  },
  {
    name: 'firstBusinessDate 20250229 (not a leap year)',
    beyondSchema: true,
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
    name: 'a latitude beyond the pole',
    json: seedWithRestaurant({ location: { latitude: 90.5 } }),
    entry: `restaurants[0] (${R1})`,
    field: 'location.latitude',
    message: /must be <= 90/,
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
