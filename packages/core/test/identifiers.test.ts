import {
  formatRecordId,
  isGuid,
  parseExternalId,
  parseGuid,
  parseRecordId,
} from '@workforce-kit/core';
import {
  externalIdArb,
  guidArb,
  guidInputArb,
  malformedShiftIdArb,
  namingAuthorityArb,
  shiftIdInputArb,
} from '@workforce-kit/core/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

const RUNS = { numRuns: 1_000 } as const;

const GUID = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';

const AUTHORITY_CHARS = [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
  '-',
  '_',
];

/** Every code point JavaScript's `\s` matches: Unicode White_Space (bar U+0085) and U+FEFF. */
const WHITESPACE = [
  ' ',
  '\t',
  '\n',
  '\u000b',
  '\f',
  '\r',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2001',
  '\u2002',
  '\u2003',
  '\u2004',
  '\u2005',
  '\u2006',
  '\u2007',
  '\u2008',
  '\u2009',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];

/** C0 controls, DEL and C1 controls: U+0000–U+001F and U+007F–U+009F. */
const CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
].map((codePoint) => String.fromCodePoint(codePoint));

/**
 * The contract's external identifier rule, written without the implementation's regex: split at
 * the first colon; the authority 1 to 16 of `[A-Za-z0-9_-]`; the value 1 to 256 code points, none
 * of them whitespace or a control character.
 */
function isExternalIdBySpec(value: string): boolean {
  const colon = value.indexOf(':');
  if (colon < 0) return false;
  const authority = [...value.slice(0, colon)];
  const rest = [...value.slice(colon + 1)];
  const isAuthorityChar = (char: string) => AUTHORITY_CHARS.includes(char);
  const isValueChar = (char: string) =>
    !/[\p{White_Space}\uFEFF]/u.test(char) && !CONTROLS.includes(char);
  return (
    authority.length >= 1 &&
    authority.length <= 16 &&
    authority.every(isAuthorityChar) &&
    rest.length >= 1 &&
    rest.length <= 256 &&
    rest.every(isValueChar)
  );
}

/** The contract's GUID rule, written without a regex: 8-4-4-4-12 hex digits, any letter case. */
function isGuidBySpec(value: string): boolean {
  if (value.length !== 36) return false;
  return [...value].every((char, i) =>
    [8, 13, 18, 23].includes(i) ? char === '-' : '0123456789abcdefABCDEF'.includes(char),
  );
}

const malformed = (value: string) => ({
  type: 'MalformedIdentifier',
  field: 'shiftId',
  value,
  expected: 'guid-or-external-id',
});

/** A code point that may appear in an external identifier's value, astral ones included. */
const valueCharArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'azAZ09-_.:/%~!') },
  { weight: 2, arbitrary: fc.constantFrom('é', 'Ω', 'ж', '中', 'ｱ') },
  { weight: 2, arbitrary: fc.constantFrom('😀', '𝄞', '\u{10fffd}', '\u{1f9d1}') },
);

/** Strings near the external identifier and GUID rules: mostly valid parts with one flaw or none. */
const nearMissArb: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      fc.string({
        unit: fc.oneof(
          { weight: 20, arbitrary: fc.constantFrom(...AUTHORITY_CHARS) },
          { weight: 1, arbitrary: fc.constantFrom('.', ' ', 'Ä', '/', '\u0000', '%') },
        ),
        maxLength: 18,
      }),
      fc.constantFrom(':', ':', ':', '', '::', '%3A'),
      fc.array(
        fc.oneof(
          { weight: 30, arbitrary: valueCharArb },
          { weight: 1, arbitrary: fc.constantFrom(...WHITESPACE, ...CONTROLS) },
        ),
        { maxLength: 6 },
      ),
      fc.constantFrom(0, 0, 250, 251, 252),
    )
    .map(
      ([authority, separator, chars, padding]) =>
        `${authority}${separator}${'v'.repeat(padding)}${chars.join('')}`,
    ),
  fc
    .tuple(
      guidInputArb,
      fc.nat({ max: 36 }),
      fc.constantFrom('', 'g', 'G', '-', ' ', '0', 'f', '{', '\u0000'),
      fc.boolean(),
    )
    .map(
      ([guid, at, char, replace]) => guid.slice(0, at) + char + guid.slice(at + (replace ? 1 : 0)),
    ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

describe('parseGuid', () => {
  it('parses a GUID in any letter case into lower case', () => {
    fc.assert(
      fc.property(guidInputArb, (input) => {
        expect(isGuid(input)).toBe(true);
        expect(parseGuid(input, 'employeeId')._unsafeUnwrap()).toBe(input.toLowerCase());
      }),
      RUNS,
    );
  });

  it('gives back what it parsed when parsing its own output', () => {
    fc.assert(
      fc.property(guidInputArb, (input) => {
        const once = parseGuid(input, 'restaurant')._unsafeUnwrap();
        expect(parseGuid(once, 'restaurant')._unsafeUnwrap()).toBe(once);
      }),
      RUNS,
    );
  });

  it('leaves a canonical lower-case GUID unchanged', () => {
    fc.assert(
      fc.property(guidArb, (guid) => {
        expect(parseGuid(guid, 'employeeId')._unsafeUnwrap()).toBe(guid);
      }),
      RUNS,
    );
  });

  it.each([
    ['braces', `{${GUID}}`],
    ['a urn:uuid: prefix', `urn:uuid:${GUID}`],
    ['no dashes', GUID.replaceAll('-', '')],
    ['a leading space', ` ${GUID}`],
    ['a trailing space', `${GUID} `],
    ['a trailing newline', `${GUID}\n`],
    ['a non-hex digit', `${GUID.slice(0, 35)}g`],
    ['a non-hex letter in the middle', `6a2b9c4d-1e3f-4a5b-8c7z-9e0f1a2b3c4d`],
    ['a dash out of place', '6a2b9c4-d1e3f-4a5b-8c7d-9e0f1a2b3c4d'],
    ['a digit too many', `${GUID}0`],
    ['a digit too few', GUID.slice(0, 35)],
    ['the empty string', ''],
    ['full-width digits', '６a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d'],
    ['an external identifier', 'SCHEDULER:shift-42'],
  ])('refuses an employeeId with %s', (_, value) => {
    expect(isGuid(value)).toBe(false);
    expect(parseGuid(value, 'employeeId')._unsafeUnwrapErr()).toEqual({
      type: 'MalformedIdentifier',
      field: 'employeeId',
      value,
      expected: 'guid',
    });
  });

  it('refuses a GUID with any one hex digit replaced by a non-hex character', () => {
    const hexPositions = Array.from({ length: 36 }, (_, i) => i).filter(
      (i) => ![8, 13, 18, 23].includes(i),
    );
    fc.assert(
      fc.property(
        guidInputArb,
        fc.constantFrom(...hexPositions),
        fc.constantFrom(...'gGzZ-_ .{x'),
        fc.constantFrom('employeeId', '/headers/platform-restaurant-external-id'),
        (guid, at, char, field) => {
          const value = guid.slice(0, at) + char + guid.slice(at + 1);
          expect(parseGuid(value, field)._unsafeUnwrapErr()).toEqual({
            type: 'MalformedIdentifier',
            field,
            value,
            expected: 'guid',
          });
        },
      ),
      RUNS,
    );
  });

  it('agrees with the 8-4-4-4-12 hex rule on near misses and arbitrary strings', () => {
    fc.assert(
      fc.property(nearMissArb, (value) => {
        expect(isGuid(value)).toBe(isGuidBySpec(value));
        expect(parseGuid(value, 'employeeId').isOk()).toBe(isGuidBySpec(value));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('parseRecordId and formatRecordId', () => {
  it('parses a GUID shift id as a lower-case GUID', () => {
    fc.assert(
      fc.property(guidInputArb, (input) => {
        expect(parseRecordId(input, 'shiftId')._unsafeUnwrap()).toEqual({
          kind: 'guid',
          guid: input.toLowerCase(),
        });
      }),
      RUNS,
    );
  });

  it('parses any other well-formed authority:value as an external id, unchanged', () => {
    fc.assert(
      fc.property(externalIdArb, (input) => {
        expect(isGuid(input)).toBe(false);
        expect(parseExternalId(input)).toBe(input);
        expect(parseRecordId(input, 'shiftId')._unsafeUnwrap()).toEqual({
          kind: 'externalId',
          externalId: input,
        });
      }),
      RUNS,
    );
  });

  it('keeps the letter case of an external id, so ids differing in case stay distinct', () => {
    const ids = ['Scheduler:Shift-42', 'scheduler:shift-42', 'SCHEDULER:SHIFT-42'];
    const parsed = ids.map((id) => formatRecordId(parseRecordId(id, 'shiftId')._unsafeUnwrap()));
    expect(parsed).toEqual(ids);
    expect(new Set(parsed).size).toBe(3);
  });

  it('formats a parsed id back to the input, lower-cased when it is a GUID', () => {
    fc.assert(
      fc.property(shiftIdInputArb, (input) => {
        const formatted = formatRecordId(parseRecordId(input, 'shiftId')._unsafeUnwrap());
        expect(formatted).toBe(isGuid(input) ? input.toLowerCase() : input);
        expect(formatRecordId(parseRecordId(formatted, 'shiftId')._unsafeUnwrap())).toBe(formatted);
      }),
      RUNS,
    );
  });

  it('names the field it parses in the error (archive takes an employeeId of either form)', () => {
    expect(parseRecordId('PAYROLL:10042', 'employeeId')._unsafeUnwrap()).toEqual({
      kind: 'externalId',
      externalId: 'PAYROLL:10042',
    });
    expect(parseRecordId('10042', 'employeeId')._unsafeUnwrapErr()).toEqual({
      ...malformed('10042'),
      field: 'employeeId',
    });
  });

  it('refuses every malformed shape as a malformed shiftId', () => {
    fc.assert(
      fc.property(malformedShiftIdArb, (input) => {
        expect(isExternalIdBySpec(input)).toBe(false);
        expect(parseExternalId(input)).toBeUndefined();
        expect(parseRecordId(input, 'shiftId')._unsafeUnwrapErr()).toEqual(malformed(input));
      }),
      RUNS,
    );
  });

  it('agrees with the external identifier rule on near misses and arbitrary strings', () => {
    fc.assert(
      fc.property(nearMissArb, (input) => {
        const result = parseRecordId(input, 'shiftId');
        if (isGuidBySpec(input)) {
          expect(result._unsafeUnwrap()).toEqual({ kind: 'guid', guid: input.toLowerCase() });
        } else if (isExternalIdBySpec(input)) {
          expect(result._unsafeUnwrap()).toEqual({ kind: 'externalId', externalId: input });
        } else {
          expect(result._unsafeUnwrapErr()).toEqual(malformed(input));
        }
      }),
      { numRuns: 3_000 },
    );
  });
});

describe('external identifier boundaries', () => {
  const accepts = (value: string) => {
    expect(parseExternalId(value)).toBe(value);
    expect(parseRecordId(value, 'shiftId')._unsafeUnwrap()).toEqual({
      kind: 'externalId',
      externalId: value,
    });
  };
  const refuses = (value: string) => {
    expect(parseExternalId(value)).toBeUndefined();
    expect(parseRecordId(value, 'shiftId')._unsafeUnwrapErr()).toEqual(malformed(value));
  };

  it('accepts an authority of 16 characters and refuses one of 17', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...AUTHORITY_CHARS), minLength: 16, maxLength: 16 }),
        fc.constantFrom(...AUTHORITY_CHARS),
        (authority, extra) => {
          accepts(`${authority}:1`);
          refuses(`${authority}${extra}:1`);
        },
      ),
      RUNS,
    );
    accepts('ABCDEFGHIJKLMNOP:1');
    refuses('ABCDEFGHIJKLMNOPQ:1');
  });

  it('accepts a value of 256 code points and refuses one of 257, astral characters counting once', () => {
    accepts(`A:${'v'.repeat(256)}`);
    refuses(`A:${'v'.repeat(257)}`);
    accepts(`A:${'😀'.repeat(256)}`);
    refuses(`A:${'😀'.repeat(257)}`);
    fc.assert(
      fc.property(
        namingAuthorityArb,
        fc.array(valueCharArb, { minLength: 256, maxLength: 256 }),
        valueCharArb,
        (authority, chars, extra) => {
          accepts(`${authority}:${chars.join('')}`);
          refuses(`${authority}:${chars.join('')}${extra}`);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each([
    ['an empty authority', ':value'],
    ['an empty value', 'AUTH:'],
    ['only a colon', ':'],
    ['the empty string', ''],
    ['no colon', 'AUTH12'],
    ['a percent-encoded colon, still encoded', 'AUTH%3A12'],
    ['a dot in the authority', 'AU.TH:1'],
    ['a slash instead of a colon', 'AUTH/1'],
    ['a non-ASCII letter in the authority', 'ÄUTH:1'],
    ['a bare word', 'shift-42'],
  ])('refuses %s', (_, value) => {
    refuses(value);
  });

  it('accepts a colon, percent sign and non-ASCII letters within the value', () => {
    accepts('AUTH:12:34');
    accepts('AUTH:100%');
    accepts('urn:uuid:6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d');
    accepts('POS:Überstunde-😀');
  });

  it.each(
    WHITESPACE.map((char) => [`U+${char.codePointAt(0)?.toString(16).padStart(4, '0')}`, char]),
  )('refuses whitespace %s anywhere in the value or the authority', (_, char) => {
    refuses(`AUTH:${char}12`);
    refuses(`AUTH:1${char}2`);
    refuses(`AUTH:12${char}`);
    refuses(`AUTH${char}:12`);
    refuses(`${char}AUTH:12`);
  });

  it.each(
    CONTROLS.map((char) => [`U+${char.codePointAt(0)?.toString(16).padStart(4, '0')}`, char]),
  )('refuses control character %s anywhere in the value or the authority', (_, char) => {
    refuses(`AUTH:${char}12`);
    refuses(`AUTH:1${char}2`);
    refuses(`AUTH:12${char}`);
    refuses(`AUTH${char}:12`);
  });

  it('accepts the code points just outside the control ranges', () => {
    accepts('AUTH:!'); // U+0021, after the space
    accepts('AUTH:~'); // U+007E, before DEL
    accepts('AUTH:\u00a1'); // after the C1 controls and U+00A0
  });

  it('refuses a value with a whitespace or control character wherever it is placed', () => {
    fc.assert(
      fc.property(
        externalIdArb,
        fc.constantFrom(...WHITESPACE, ...CONTROLS),
        fc.nat(),
        (id, bad, position) => {
          const colon = id.indexOf(':');
          const value = [...id.slice(colon + 1)];
          const at = position % (value.length + 1);
          const input = `${id.slice(0, colon + 1)}${[...value.slice(0, at), bad, ...value.slice(at)].join('')}`;
          refuses(input);
        },
      ),
      RUNS,
    );
  });
});
