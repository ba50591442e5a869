import fc from 'fast-check';
import { type ExternalId, type Guid, isGuid, parseExternalId } from '../identifiers.js';
import {
  type DaySchedule,
  type Employee,
  type Instant,
  type Reference,
  type Restaurant,
  type Shift,
  type ShiftFields,
  type StoredRecord,
  WEEKDAYS,
} from '../records.js';

/** A platform GUID in canonical lower case. */
export const guidArb: fc.Arbitrary<Guid> = fc.uuid().map((uuid) => uuid as Guid);

/** A platform GUID as a client may send it: any letter case. */
export const guidInputArb: fc.Arbitrary<string> = fc
  .tuple(fc.uuid(), fc.array(fc.boolean(), { minLength: 36, maxLength: 36 }))
  .map(([uuid, upper]) =>
    [...uuid].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join(''),
  );

const AUTHORITY_CHARS = [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  '-',
  '_',
];

/** A naming authority: 1 to 16 letters, digits, `-` or `_`. */
export const namingAuthorityArb: fc.Arbitrary<string> = fc.string({
  unit: fc.constantFrom(...AUTHORITY_CHARS),
  minLength: 1,
  maxLength: 16,
});

const isAllowedInValue = (char: string) => parseExternalId(`A:${char}`) !== undefined;

/** One code point allowed in an external identifier's value, mostly printable ASCII. */
export const valueCharArb: fc.Arbitrary<string> = fc
  .oneof(
    { weight: 8, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) },
    { weight: 2, arbitrary: fc.integer({ min: 0xa0, max: 0xd7ff }) },
    { weight: 1, arbitrary: fc.integer({ min: 0xe000, max: 0x10ffff }) },
  )
  .map((codePoint) => String.fromCodePoint(codePoint))
  .filter(isAllowedInValue);

/** An external identifier `{namingAuthority}:{value}` (the value 1 to 256 code points). */
export const externalIdArb: fc.Arbitrary<ExternalId> = fc
  .tuple(
    namingAuthorityArb,
    fc.array(valueCharArb, { minLength: 1, maxLength: 256 }).map((chars) => chars.join('')),
  )
  .map(([authority, value]) => `${authority}:${value}` as ExternalId);

/** A well-formed shift identifier as a client sends it: a GUID (any case) or an external id. */
export const shiftIdInputArb: fc.Arbitrary<string> = fc.oneof(guidInputArb, externalIdArb);

/** One code point, any of them (a lone surrogate included), as a string. */
const anyCodePointArb = fc
  .integer({ min: 0, max: 0x10ffff })
  .map((codePoint) => String.fromCodePoint(codePoint));

/**
 * A shift identifier that is neither a GUID nor an external identifier: targeted near-misses
 * (an authority too long or with a bad character, an empty or too long value, whitespace or
 * control characters, no colon, a GUID with a bad digit) and arbitrary strings.
 */
export const malformedShiftIdArb: fc.Arbitrary<string> = fc
  .oneof(
    fc
      .string({ unit: fc.constantFrom(...AUTHORITY_CHARS), minLength: 17, maxLength: 24 })
      .map((a) => `${a}:v`),
    namingAuthorityArb.map((a) => `${a}:`),
    fc.constantFrom('', ':', ':value', 'AU TH:1', 'AU.TH:1', 'AUTH/1', 'shift-42'),
    fc
      .tuple(
        namingAuthorityArb,
        fc.constantFrom(
          ' ',
          '\t',
          '\n',
          '\u0000',
          '\u007f',
          '\u0085',
          '\u00a0',
          '\u2028',
          '\u3000',
        ),
      )
      .map(([a, bad]) => `${a}:x${bad}y`),
    namingAuthorityArb.map((a) => `${a}:${'v'.repeat(257)}`),
    fc.uuid().map((uuid) => `${uuid.slice(0, -1)}g`),
    // Any code points, lone surrogates included (what fast-check's 'binary' unit draws), without
    // building that unit: it maps every code point, about 90 MB and a second at import.
    fc.string({ unit: anyCodePointArb, maxLength: 40 }),
  )
  .filter((value) => !isGuid(value) && parseExternalId(value) === undefined);

/** An instant between 2000 and 2099, in the canonical form. */
export const instantArb: fc.Arbitrary<Instant> = fc
  .date({
    min: new Date('2000-01-01T00:00:00.000Z'),
    max: new Date('2099-12-31T23:59:59.999Z'),
    noInvalidDate: true,
  })
  .map((date) => date.toISOString());

const nameArb = fc.constantFrom('Maria', 'Jon', 'Aiko', 'Ngozi', 'Luis', 'Søren', 'Zoë', 'Ана');

const referenceArb = (entityType: string): fc.Arbitrary<Reference> =>
  fc.record(
    { guid: guidArb, entityType: fc.constant(entityType), externalId: externalIdArb },
    { requiredKeys: ['guid', 'entityType'], noNullPrototype: true },
  );

const emailArb = fc
  .tuple(
    fc.stringMatching(/^[a-z][a-z0-9.]{0,10}[a-z0-9]$/),
    fc.constantFrom('example.com', 'example.org'),
  )
  .filter(([local]) => !local.includes('..'))
  .map(([local, domain]) => `${local}@${domain}`);

/** Deleted/archived state with a matching `deletedDate` (present exactly when deleted). */
const deletionArb = fc.oneof(
  fc.constant({ deleted: false as const }),
  instantArb.map((deletedDate) => ({ deleted: true as const, deletedDate })),
);

/**
 * An employee of `restaurantGuid`, archived or not, with any of the optional fields.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 *
 * fc.assert(fc.property(employeeArb(restaurant.guid), (employee) => employee.restaurantGuid === restaurant.guid));
 * ```
 */
export function employeeArb(restaurantGuid: Guid): fc.Arbitrary<Employee> {
  return fc
    .tuple(
      fc.record(
        {
          guid: guidArb,
          version: fc.integer({ min: 1, max: 1_000 }),
          createdDate: instantArb,
          modifiedDate: instantArb,
          externalId: externalIdArb,
          firstName: nameArb,
          chosenName: nameArb,
          lastName: fc.constantFrom('Lopez', 'Okafor', 'Tanaka', 'Berg', 'Ng'),
          email: emailArb,
          phoneNumber: fc.stringMatching(/^[0-9]{10}$/),
          phoneNumberCountryCode: fc.constantFrom('1', '44', '49', '81'),
          passcode: fc.stringMatching(/^[0-9]{4}$/),
          externalEmployeeId: fc.stringMatching(/^[0-9]{1,6}$/),
          jobReferences: fc.array(referenceArb('RestaurantJob'), { maxLength: 3 }),
          wageOverrides: fc.array(
            fc.record(
              {
                jobReference: referenceArb('RestaurantJob'),
                wage: fc.double({ min: 0, max: 200, noNaN: true, noDefaultInfinity: true }),
              },
              { noNullPrototype: true },
            ),
            { maxLength: 2 },
          ),
          v2EmployeeGuid: guidArb,
          swipeCard: fc.stringMatching(/^card-[0-9]{4}$/),
        },
        { requiredKeys: ['guid', 'version', 'createdDate', 'modifiedDate'], noNullPrototype: true },
      ),
      deletionArb,
    )
    .map(([fields, deletion]) => {
      // An archived employee has no swipe card: archiving dropped it.
      const { swipeCard, ...rest } = fields;
      return {
        restaurantGuid,
        ...rest,
        ...deletion,
        ...(deletion.deleted || swipeCard === undefined ? {} : { swipeCard }),
      };
    });
}

/** What a shift's fields are made of: {@link shiftFieldsArb}'s parts. */
export interface ShiftFieldParts {
  readonly externalId: fc.Arbitrary<ExternalId>;
  readonly reference: (entityType: string) => fc.Arbitrary<Reference>;
  readonly minutes: fc.Arbitrary<number>;
  /** Every field present, rather than each one or not. */
  readonly every?: boolean;
}

/**
 * The fields of a shift besides those every stored record has (and its deletion): of `shiftArb`,
 * and of the conformance suite's records, each from its own parts.
 */
export function shiftFieldsArb(
  parts: ShiftFieldParts,
): fc.Arbitrary<Omit<ShiftFields, keyof StoredRecord>> {
  const { externalId, reference, minutes } = parts;
  const constraints = parts.every
    ? { noNullPrototype: true }
    : { requiredKeys: [] as [], noNullPrototype: true };
  return fc.record(
    {
      externalId,
      jobReference: reference('RestaurantJob'),
      employeeReference: reference('RestaurantUser'),
      inDate: instantArb,
      outDate: instantArb,
      scheduleConfig: fc.record(
        {
          guid: guidArb,
          minBeforeClockIn: minutes,
          minAfterClockIn: minutes,
          minBeforeClockOut: minutes,
          minAfterClockOut: minutes,
        },
        constraints,
      ),
    },
    constraints,
  );
}

/** A shift of `restaurantGuid`, deleted or not, with any of the optional fields. */
export function shiftArb(restaurantGuid: Guid): fc.Arbitrary<Shift> {
  return fc
    .tuple(
      fc.record(
        {
          guid: guidArb,
          version: fc.integer({ min: 1, max: 1_000 }),
          createdDate: instantArb,
          modifiedDate: instantArb,
        },
        { noNullPrototype: true },
      ),
      shiftFieldsArb({
        externalId: externalIdArb,
        reference: referenceArb,
        minutes: fc.integer({ min: 0, max: 240 }),
      }),
      deletionArb,
    )
    .map(([stored, fields, deletion]) => ({ restaurantGuid, ...stored, ...fields, ...deletion }));
}

const timeOfDayArb = fc
  .tuple(
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 59 }),
  )
  .map(
    ([h, m, s]) =>
      `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}.000`,
  );

const dayScheduleArb: fc.Arbitrary<DaySchedule> = fc.record(
  {
    scheduleName: fc.constantFrom('Weekday', 'Weekend', 'Holiday'),
    services: fc.array(
      fc.record(
        {
          name: fc.constantFrom('Breakfast', 'Lunch', 'Dinner', 'Late night'),
          hours: fc.record(
            { startTime: timeOfDayArb, endTime: timeOfDayArb },
            { requiredKeys: [], noNullPrototype: true },
          ),
          overnight: fc.boolean(),
        },
        { requiredKeys: [], noNullPrototype: true },
      ),
      { maxLength: 3 },
    ),
    openTime: timeOfDayArb,
    closeTime: timeOfDayArb,
  },
  { requiredKeys: [], noNullPrototype: true },
);

const schedulesArb: fc.Arbitrary<NonNullable<Restaurant['schedules']>> = fc
  .dictionary(
    fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/).filter((key) => key !== 'identifier'),
    dayScheduleArb,
    {
      minKeys: 1,
      maxKeys: 3,
    },
  )
  .chain((byKey) =>
    fc.record(
      {
        daySchedules: fc.record(
          { identifier: fc.stringMatching(/^[a-z0-9-]{1,20}$/), byKey: fc.constant(byKey) },
          { requiredKeys: ['byKey'], noNullPrototype: true },
        ),
        weekSchedule: fc.record(
          Object.fromEntries(WEEKDAYS.map((day) => [day, fc.constantFrom(...Object.keys(byKey))])),
          { requiredKeys: [], noNullPrototype: true },
        ),
      },
      { requiredKeys: ['daySchedules'], noNullPrototype: true },
    ),
  );

const boolArb = fc.boolean();
/** JSON has no negative zero, so none is generated. */
const coordinateArb = (limit: number) =>
  fc.double({ min: -limit, max: limit, noNaN: true }).map((value) => (value === 0 ? 0 : value));
const amountArb = fc.integer({ min: 0, max: 120 });

/** A restaurant, archived or not, with any of the optional sections. */
export const restaurantArb: fc.Arbitrary<Restaurant> = fc.record(
  {
    guid: guidArb,
    general: fc.record(
      {
        name: fc.constantFrom('Harbor Street Kitchen', 'Noodle Bar', 'Café Lumière', 'Taquería 21'),
        locationName: fc.constantFrom('Harbor Street', 'Downtown', 'Airport'),
        locationCode: fc.stringMatching(/^[A-Z]{3}-[0-9]{2}$/),
        description: fc.constantFrom('Seafood bistro.', 'Ramen and dumplings.', ''),
        timeZone: fc.constantFrom('America/New_York', 'Europe/Berlin', 'Asia/Tokyo', 'UTC'),
        closeoutHour: fc.integer({ min: 0, max: 23 }),
        managementGroupGuid: guidArb,
        currencyCode: fc.constantFrom('USD', 'EUR', 'JPY', 'GBP'),
        firstBusinessDate: fc
          .date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
          .map((d) => d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate()),
        archived: boolArb,
      },
      { requiredKeys: ['name', 'archived'], noNullPrototype: true },
    ),
    urls: fc.record(
      {
        website: fc.constant('https://harborstreetkitchen.example.com'),
        facebook: fc.constant('https://www.facebook.com/harborstreetkitchen'),
        orderOnline: fc.constant('https://order.example.com/harbor-street-kitchen'),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
    location: fc.record(
      {
        address1: fc.constantFrom('120 Harbor Street', '1 Main St'),
        city: fc.constantFrom('Boston', 'Berlin', 'Tokyo'),
        country: fc.constantFrom('US', 'DE', 'JP'),
        phoneCountryCode: fc.constantFrom('1', '49', '81'),
        latitude: coordinateArb(90),
        longitude: coordinateArb(180),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
    schedules: schedulesArb,
    delivery: fc.record(
      { enabled: boolArb, minimum: amountArb, area: fc.constant('_p~iF~ps|U') },
      { requiredKeys: [], noNullPrototype: true },
    ),
    onlineOrdering: fc.record(
      {
        enabled: boolArb,
        scheduling: boolArb,
        specialRequests: boolArb,
        specialRequestsMessage: fc.constantFrom('Tell us about any allergies.'),
        paymentOptions: fc.record(
          {
            delivery: fc.record(
              { cash: boolArb, ccSameDay: boolArb, ccFuture: boolArb },
              { requiredKeys: [], noNullPrototype: true },
            ),
            takeout: fc.record(
              { cash: boolArb, ccSameDay: boolArb, ccFuture: boolArb, ccInStore: boolArb },
              { requiredKeys: [], noNullPrototype: true },
            ),
            ccTip: boolArb,
          },
          { requiredKeys: [], noNullPrototype: true },
        ),
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
    prepTimes: fc.record(
      {
        deliveryPrepTime: amountArb,
        deliveryTimeAfterOpen: amountArb,
        deliveryTimeBeforeClose: amountArb,
        takeoutPrepTime: amountArb,
        takeoutTimeAfterOpen: amountArb,
        takeoutTimeBeforeClose: amountArb,
        takeoutThrottlingTime: amountArb,
        deliveryThrottlingTime: amountArb,
      },
      { requiredKeys: [], noNullPrototype: true },
    ),
  },
  { requiredKeys: ['guid', 'general'], noNullPrototype: true },
);
