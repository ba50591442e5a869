// The records the conformance suite round-trips through a store: employees and shifts over the
// whole shape the spec allows (openapi/openapi.yaml, and records.ts), generated with fast-check.
import fc from 'fast-check';
import type { ExternalId, Guid } from '../identifiers.js';
import type { Employee, Reference, Shift } from '../records.js';
import {
  guidArb,
  instantArb,
  namingAuthorityArb,
  shiftFieldsArb,
  valueCharArb,
} from './arbitraries.js';
import { newGuid } from './builders.js';

/**
 * The longest text the suite generates for a string the spec does not bound (names, email
 * aside, passcode, swipe card), in code points.
 */
export const LONGEST_TEXT = 1_000;
/** The most elements the suite puts in a list the spec does not bound (jobs, wage overrides). */
const LONGEST_LIST = 8;

/**
 * One code point of a text: mostly printable ASCII, quotes and backslashes, tabs and newlines,
 * letters and marks of the rest of the BMP, and code points beyond it (emoji, as UTF-16 surrogate
 * pairs). No lone surrogate (it has no UTF-8 form) and no U+0000 (PostgreSQL's text cannot hold it).
 */
const textCharArb: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCodePoint(c)),
  },
  { weight: 1, arbitrary: fc.constantFrom("'", '"', '\\', '\t', '\n', '%', '_') },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0xa0, max: 0xd7ff }).map((c) => String.fromCodePoint(c)),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0x1f300, max: 0x1faff }).map((c) => String.fromCodePoint(c)),
  },
);

const textArb = (longest: boolean) =>
  longest
    ? fc
        .array(textCharArb, { minLength: LONGEST_TEXT, maxLength: LONGEST_TEXT })
        .map((c) => c.join(''))
    : fc.oneof(
        { weight: 8, arbitrary: fc.string({ unit: textCharArb, maxLength: 24 }) },
        { weight: 1, arbitrary: fc.string({ unit: textCharArb, maxLength: LONGEST_TEXT }) },
      );

/** An external identifier; the longest has a 16-character authority and a 256-code-point value. */
const externalIdArb = (longest: boolean): fc.Arbitrary<ExternalId> =>
  fc
    .tuple(
      longest
        ? namingAuthorityArb.map((authority) => authority.padEnd(16, 'X').slice(0, 16))
        : namingAuthorityArb,
      fc.array(valueCharArb, { minLength: longest ? 256 : 1, maxLength: 256 }),
    )
    .map(([authority, value]) => `${authority}:${value.join('')}` as ExternalId);

/** An email address; the longest is 254 characters, the most an address may have. */
const emailArb = (longest: boolean) =>
  longest
    ? fc
        .tuple(fc.stringMatching(/^[a-z0-9]{64}$/), fc.stringMatching(/^[a-z0-9]{63}$/))
        .map(([local, label]) => `${local}@${label}.${label}.${label.slice(0, 57)}.com`)
    : fc.emailAddress();

const listArb = <T>(item: fc.Arbitrary<T>, longest: boolean) =>
  fc.array(item, { minLength: longest ? LONGEST_LIST : 0, maxLength: longest ? LONGEST_LIST : 3 });

const referenceArb = (entityType: string, longest: boolean): fc.Arbitrary<Reference> =>
  fc.record(
    { guid: guidArb, entityType: fc.constant(entityType), externalId: externalIdArb(longest) },
    longest
      ? { noNullPrototype: true }
      : { requiredKeys: ['guid', 'entityType'], noNullPrototype: true },
  );

/** A non-negative number: a wage. No negative zero, which JSON cannot carry. */
const wageArb = fc.oneof(
  fc.constantFrom(0, 0.1, 21.5, 5e-324, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE),
  fc.double({ min: 0, max: 1e9, noNaN: true, noDefaultInfinity: true }).map((v) => v + 0),
);

/** A count of minutes: the spec bounds it below only; a 32-bit integer's most at the longest. */
const minutesArb = (longest: boolean) =>
  longest ? fc.constant(2_147_483_647) : fc.integer({ min: 0, max: 2_147_483_647 });

type Deletion =
  | { readonly deleted: false }
  | { readonly deleted: true; readonly deletedDate: string };
const NOT_DELETED: fc.Arbitrary<Deletion> = fc.constant({ deleted: false });
const DELETED_AT: fc.Arbitrary<Deletion> = instantArb.map((deletedDate) => ({
  deleted: true,
  deletedDate,
}));
const EITHER = fc.oneof(NOT_DELETED, DELETED_AT);

const optional = (longest: boolean) =>
  longest ? { noNullPrototype: true } : { requiredKeys: [] as [], noNullPrototype: true };

/** A record of `restaurantGuid` at its first version, of `fields` and `deletion`. */
function recordArb<F extends object>(
  restaurantGuid: Guid,
  fields: fc.Arbitrary<F>,
  deletion: fc.Arbitrary<Deletion>,
) {
  return fc
    .tuple(guidArb, instantArb, instantArb, fields, deletion)
    .map(([guid, createdDate, modifiedDate, values, deleted]) => ({
      restaurantGuid,
      guid,
      version: 1,
      createdDate,
      modifiedDate,
      ...values,
      ...deleted,
    }));
}

function employeeArb(
  restaurantGuid: Guid,
  longest: boolean,
  deletion = EITHER,
): fc.Arbitrary<Employee> {
  const text = textArb(longest);
  const fields = fc.record(
    {
      externalId: externalIdArb(longest),
      firstName: text,
      chosenName: text,
      lastName: text,
      email: emailArb(longest),
      phoneNumber: text,
      phoneNumberCountryCode: fc.stringMatching(longest ? /^\d{4}$/ : /^\d{1,4}$/),
      passcode: text,
      externalEmployeeId: text,
      jobReferences: listArb(referenceArb('RestaurantJob', longest), longest),
      wageOverrides: listArb(
        fc.record(
          { jobReference: referenceArb('RestaurantJob', longest), wage: wageArb },
          { noNullPrototype: true },
        ),
        longest,
      ),
      v2EmployeeGuid: guidArb,
      swipeCard: text,
    },
    optional(longest),
  );
  return recordArb(restaurantGuid, fields, deletion).map((employee) => {
    // An archived employee has no swipe card: archiving dropped it.
    const { swipeCard, ...rest } = employee;
    return (rest.deleted || swipeCard === undefined ? rest : { ...rest, swipeCard }) as Employee;
  });
}

function shiftArb(restaurantGuid: Guid, longest: boolean, deletion = EITHER): fc.Arbitrary<Shift> {
  const fields = shiftFieldsArb({
    externalId: externalIdArb(longest),
    reference: (entityType) => referenceArb(entityType, longest),
    minutes: minutesArb(longest),
    every: longest,
  });
  return recordArb(restaurantGuid, fields, deletion) as fc.Arbitrary<Shift>;
}

/** Keeps GUIDs and external ids unique among the records, as a seed must have them. */
function unique<T extends Employee | Shift>(records: readonly T[]): T[] {
  const guids = new Set<string>();
  const externalIds = new Set<string>();
  return records.map((record) => {
    let kept = record;
    if (guids.has(kept.guid)) kept = { ...kept, guid: newGuid() };
    if (kept.externalId !== undefined && externalIds.has(kept.externalId)) {
      const { externalId: _taken, ...rest } = kept;
      kept = rest as T;
    }
    guids.add(kept.guid);
    if (kept.externalId !== undefined) externalIds.add(kept.externalId);
    return kept;
  });
}

/** The edge shapes every run has, besides the random records: the least and the most a record holds. */
const DELETED = { deleted: true, deletedDate: '2026-02-01T12:00:00.000Z' } as const;

/**
 * Employees and shifts of a restaurant to round-trip through a store: `count` generated over the
 * whole shape the spec allows (any optional field absent or present, empty and non-empty lists,
 * unicode), and the edges every run has: each kind with no optional field, with every field at
 * its longest, with empty lists and an empty `scheduleConfig`, deleted and not.
 *
 * @param restaurantGuid - the restaurant they belong to
 * @param seed - fast-check's seed: the same seed gives the same records
 * @param count - how many of each kind to generate besides the edges
 */
export function recordsToRoundTrip(
  restaurantGuid: Guid,
  seed: number,
  count: number,
): { readonly employees: Employee[]; readonly shifts: Shift[] } {
  const sample = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number, offset: number) =>
    fc.sample(arbitrary, { numRuns, seed: seed + offset });
  const longest = <T>(arbitrary: fc.Arbitrary<T>, offset: number) => sample(arbitrary, 1, offset);
  const bare = {
    restaurantGuid,
    version: 1,
    createdDate: '2026-01-05T09:00:00.000Z',
    modifiedDate: '2026-01-05T09:00:00.000Z',
  } as const;
  const employees: Employee[] = [
    { ...bare, guid: newGuid(), deleted: false },
    { ...bare, guid: newGuid(), ...DELETED },
    { ...bare, guid: newGuid(), deleted: false, jobReferences: [], wageOverrides: [] },
    { ...bare, guid: newGuid(), ...DELETED, jobReferences: [], wageOverrides: [] },
    ...longest(employeeArb(restaurantGuid, true, NOT_DELETED), 1),
    ...longest(employeeArb(restaurantGuid, true, DELETED_AT), 2),
    ...sample(employeeArb(restaurantGuid, false), count, 3),
  ];
  const shifts: Shift[] = [
    { ...bare, guid: newGuid(), deleted: false },
    { ...bare, guid: newGuid(), ...DELETED },
    { ...bare, guid: newGuid(), deleted: false, scheduleConfig: {} },
    ...longest(shiftArb(restaurantGuid, true, NOT_DELETED), 4),
    ...longest(shiftArb(restaurantGuid, true, DELETED_AT), 5),
    ...sample(shiftArb(restaurantGuid, false), count, 6),
  ];
  return { employees: unique(employees), shifts: unique(shifts) };
}
