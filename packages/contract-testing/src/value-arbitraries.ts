// Generators of parameter values, read from the spec's schemas: valid ones (mostly the seed's
// identifiers, in any letter case; otherwise text the schema admits, beyond ASCII too) and
// invalid ones (near misses of valid values, any text, bad percent-encoding).
import fc from 'fast-check';
import type { Engine } from './engine.js';
import type { Value } from './requests.js';
import {
  isDotSegment,
  isUnconstrained,
  isValidText,
  type ParameterLocation,
  type Spec,
  type SpecOperation,
  type SpecParameter,
} from './spec-reader.js';

/**
 * Characters a header value may carry on the wire (Node refuses the rest), the plainest first: a
 * generated character shrinks toward the first of its list, so a shrunk value is letters and
 * digits but where the failure needs another character, and a byte beyond ASCII it needs is a
 * visible letter (`À`) before an invisible one or a tab.
 */
const PLAIN = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];
const chars = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i));
const PRINTABLE = [...PLAIN, ...chars(0x20, 0x7e).filter((c) => !PLAIN.includes(c))];
const HEADER_CHARS = [...PRINTABLE, ...chars(0xc0, 0xff), ...chars(0xa0, 0xbf), '\t'];
const sendableInHeader = (text: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(text);
/** Whether `convert` takes `text` without throwing (a lone surrogate, a bad `%` escape). */
const converts = (convert: (text: string) => string) => (text: string) => {
  try {
    convert(text);
    return true;
  } catch {
    return false;
  }
};
const encodable = converts(encodeURIComponent);
const decodable = converts(decodeURIComponent);

const headerTextArb = fc.oneof(
  { withCrossShrink: true },
  fc.string({ unit: fc.constantFrom(...PRINTABLE), maxLength: 140 }),
  fc.string({ unit: fc.constantFrom(...HEADER_CHARS), maxLength: 40 }),
);
const freeTextArb = (location: ParameterLocation) =>
  location === 'header'
    ? headerTextArb
    : fc.string({ unit: 'grapheme', minLength: location === 'path' ? 1 : 0, maxLength: 30 });

/** A code point beyond ASCII, not a surrogate. */
const nonAsciiArb = fc
  .oneof(fc.integer({ min: 0x80, max: 0x7ff }), fc.integer({ min: 0x800, max: 0x10ffff }))
  .filter((c) => c < 0xd800 || c > 0xdfff)
  .map((c) => String.fromCodePoint(c));

/**
 * The arbitraries made from a parameter's schema: building one (fast-check's stringMatching of a
 * pattern) costs far more than drawing from it, so each is built once per process, for each place
 * and schema of a spec (the context header of every operation shares one).
 */
const textArbs = new WeakMap<Spec, Map<string, fc.Arbitrary<string>>>();
const invalidTextArbs = new WeakMap<Spec, Map<string, fc.Arbitrary<string> | undefined>>();

/** `cache`'s value for `p`'s place and schema in `spec`, made by `make` the first time. */
function once<T>(
  cache: WeakMap<Spec, Map<string, T>>,
  spec: Spec,
  p: SpecParameter,
  make: () => T,
): T {
  let bySchema = cache.get(spec);
  if (bySchema === undefined) {
    bySchema = new Map();
    cache.set(spec, bySchema);
  }
  const key = `${p.in} ${JSON.stringify(p.schema)}`;
  if (bySchema.has(key)) return bySchema.get(key) as T;
  const made = make();
  bySchema.set(key, made);
  return made;
}

/** Text that is valid for `p` by its schema alone. */
const schemaTextArb = (spec: Spec, p: SpecParameter): fc.Arbitrary<string> =>
  once(textArbs, spec, p, () => buildSchemaTextArb(spec, p));

function buildSchemaTextArb(spec: Spec, p: SpecParameter): fc.Arbitrary<string> {
  const { schema } = p;
  let arb: fc.Arbitrary<string>;
  if (schema.enum !== undefined) arb = fc.constantFrom(...schema.enum.map(String));
  else if (schema.type === 'boolean') arb = fc.constantFrom('true', 'false');
  else if (schema.type === 'integer') {
    arb = fc
      .integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 })
      .map(String);
  } else if (schema.type === 'string' && schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern, 'u');
    const matching = fc.oneof(
      fc.stringMatching(pattern),
      fc.stringMatching(pattern, { size: 'large' }),
    );
    // fast-check draws the characters of a negated class from ASCII only: append code points
    // beyond it, and keep the values the pattern still accepts.
    const beyondAscii = fc
      .tuple(matching, fc.array(nonAsciiArb, { minLength: 1, maxLength: 8 }))
      .map(([text, extra]) => `${text}${extra.join('')}`);
    arb = fc.oneof({ weight: 3, arbitrary: matching }, { weight: 1, arbitrary: beyondAscii });
  } else if (isUnconstrained(p)) arb = freeTextArb(p.in);
  else throw new Error(`no generator for the schema of ${p.in} parameter ${p.name}`);
  if (p.in === 'header') {
    // Optional whitespace around a header value is not part of it (RFC 9110).
    arb = fc
      .tuple(fc.constantFrom('', '', ' ', '\t', '  '), arb, fc.constantFrom('', '', ' ', '\t'))
      .map((parts) => parts.join(''));
  }
  return arb.filter((text) => isValidText(spec, p, text));
}

const anyCaseArb = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) =>
      [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''),
    );

/** Path segments that are not valid percent-encoding. */
export const badEncodingArb = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z0-9:_-]{0,8}$/),
    fc.constantFrom('%', '%G1', '%E0%A4', '%ED%A0%80', '%C0%AF', '%FF', '%2'),
    fc.stringMatching(/^[A-Za-z0-9_-]{0,8}$/),
  )
  .map((parts) => parts.join(''))
  .filter((text) => !decodable(text));

const externalIds = (beyondAscii: boolean) =>
  fc
    .tuple(
      fc.stringMatching(/^[A-Z]{1,8}$/),
      fc.stringMatching(/^[A-Za-z0-9-]{0,8}$/),
      fc.array(nonAsciiArb, { minLength: beyondAscii ? 1 : 0, maxLength: beyondAscii ? 4 : 0 }),
    )
    .map(([authority, value, extra]) => `${authority}:${value}${extra.join('')}`);
const asciiIds = externalIds(false);
const beyondAsciiIds = externalIds(true);

/**
 * External identifiers (`{namingAuthority}:{value}`) of records no seed has: ASCII ones, or, with
 * `beyondAscii`, ones whose value ends in characters beyond ASCII.
 */
export const externalIdArb = (beyondAscii: boolean) => (beyondAscii ? beyondAsciiIds : asciiIds);

/** Whether path parameter `p` takes external identifiers, beyond ASCII too. */
export const acceptsExternalIds = (spec: Spec, p: SpecParameter) =>
  p.in === 'path' && isValidText(spec, p, 'SEED:x\u00e9\u{1F600}');

/** The identifiers of the seed's records, by the collection segment that precedes a path parameter. */
function identifierPools(engine: Engine): ReadonlyMap<string, readonly string[]> {
  const { world } = engine;
  const ids = (records: readonly { guid: string; externalId?: string }[]) =>
    records.flatMap((r) => [r.guid, ...(r.externalId === undefined ? [] : [r.externalId])]);
  return new Map([
    ['restaurants', world.restaurants.map((r) => r.guid)],
    ['employees', ids(world.employees)],
    ['shifts', ids(world.shifts)],
  ]);
}

/**
 * A valid value of `p`: mostly an identifier of the seed's records (a path parameter takes those
 * of the collection its path names; the context header those of the restaurants), otherwise one
 * generated from the schema.
 */
export function validValueArb(
  engine: Engine,
  op: SpecOperation,
  p: SpecParameter,
): fc.Arbitrary<Value> {
  const fromSchema = schemaTextArb(engine.spec, p)
    .filter((text) => p.in !== 'path' || !isDotSegment(text))
    .map((text): Value => ({ text }));
  let pool: readonly string[] = [];
  if (p.in === 'path') {
    const segments = op.template.split('/');
    const collection = segments[segments.indexOf(`{${p.name}}`) - 1] ?? '';
    pool = identifierPools(engine).get(collection) ?? [];
  } else if (p.in === 'header' && !isUnconstrained(p)) {
    pool = engine.world.restaurants.map((r) => r.guid);
  }
  pool = pool.filter((text) => isValidText(engine.spec, p, text));
  const arbs: fc.WeightedArbitrary<Value>[] = [{ weight: 1, arbitrary: fromSchema }];
  if (pool.length > 0) {
    const known = fc.constantFrom(...pool);
    arbs.push(
      { weight: 3, arbitrary: known.map((text): Value => ({ text })) },
      {
        weight: 1,
        arbitrary: known
          .chain(anyCaseArb)
          .filter((text) => isValidText(engine.spec, p, text))
          .map((text): Value => ({ text })),
      },
    );
  }
  if (p.in === 'path' && isUnconstrained(p)) {
    arbs.push({ weight: 1, arbitrary: badEncodingArb.map((text): Value => ({ text, raw: true })) });
  }
  if (acceptsExternalIds(engine.spec, p)) {
    // External identifiers beyond ASCII, in every run's reach: a store that mishandles them
    // answers 500 (the schema's text reaches them too rarely for 100 runs to be sure).
    const beyondAscii = externalIdArb(true).filter((text) => isValidText(engine.spec, p, text));
    arbs.push({ weight: 1, arbitrary: beyondAscii.map((text): Value => ({ text })) });
  }
  return fc.oneof(...arbs);
}

/** A value that `p`'s schema refuses (near misses of valid ones, and any text), or `undefined`. */
export const invalidTextArb = (spec: Spec, p: SpecParameter): fc.Arbitrary<string> | undefined =>
  once(invalidTextArbs, spec, p, () => buildInvalidTextArb(spec, p));

function buildInvalidTextArb(spec: Spec, p: SpecParameter): fc.Arbitrary<string> | undefined {
  if (isUnconstrained(p)) return undefined;
  const nearMiss = fc
    .tuple(
      schemaTextArb(spec, p),
      fc.nat(),
      fc.constantFrom(...'x:-_ /%.~Z\u00e9\u0000\t'),
      fc.constantFrom('insert', 'delete', 'replace'),
    )
    .map(([text, at, char, edit]) => {
      const chars = [...text];
      const i = chars.length === 0 ? 0 : at % chars.length;
      if (edit === 'insert') chars.splice(i, 0, char);
      else if (edit === 'delete') chars.splice(i, 1);
      else chars.splice(i, 1, char);
      return chars.join('');
    });
  return fc
    .oneof(
      nearMiss,
      freeTextArb(p.in),
      fc.constantFrom(
        '',
        ' ',
        'null',
        '0',
        'TRUE',
        'False',
        '00000000-0000-0000-0000-00000000000g',
      ),
    )
    .filter(
      (text) =>
        !isValidText(spec, p, text) &&
        (p.in === 'header' ? sendableInHeader(text) : encodable(text)) &&
        (p.in !== 'path' || (text !== '' && !isDotSegment(text))),
    );
}
