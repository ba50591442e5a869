// Generators of whole requests of an operation: valid drafts (every parameter valid, any grant,
// header names in any case, values over-encoded, HEAD for GET) and defects that make one invalid
// field by field (a parameter, the media type, the body), each with the answer it must get.
import fc from 'fast-check';
import type { Engine } from './engine.js';
import { type Draft, setValue, showDraft, type Value } from './requests.js';
import type { RuleName } from './rules.js';
import type { ParameterLocation, Spec, SpecOperation, SpecParameter } from './spec-reader.js';
import type { Grant } from './token-source.js';
import { badEncodingArb, invalidTextArb, validValueArb } from './value-arbitraries.js';

/** `value`, printed by fast-check (in a counterexample) as `text` makes it. */
export const printable = <T extends object>(value: T, text: (self: T) => string): T =>
  Object.assign(value, {
    [fc.toStringMethod](this: T) {
      return text(this);
    },
  });

export const grantArb = (engine: Engine): fc.Arbitrary<Grant> =>
  fc.record({
    scopes: fc.oneof(
      { weight: 4, arbitrary: fc.constant(engine.spec.scopes) },
      { weight: 1, arbitrary: fc.subarray([...engine.spec.scopes]) },
    ),
    restaurants: fc.oneof(
      { weight: 3, arbitrary: fc.constant<'*'>('*') },
      { weight: 2, arbitrary: fc.subarray(engine.world.restaurants.map((r) => r.guid)) },
    ),
  });

/** The request media type of `op` as a client may write it (case, a UTF-8 charset). */
const mediaTypeArb = (op: SpecOperation) =>
  op.requestMediaTypes === undefined || op.requestMediaTypes.length === 0
    ? fc.constant(undefined)
    : fc
        .constantFrom(...op.requestMediaTypes)
        .chain((type) => fc.constantFrom(type, type.toUpperCase(), `${type}; charset=utf-8`));

export function validDraftArb(
  engine: Engine,
  op: SpecOperation,
  grant: fc.Arbitrary<Grant>,
): fc.Arbitrary<Draft> {
  const entries = op.parameters.map((p) => {
    const value = validValueArb(engine, op, p);
    return (p.required ? value : fc.option(value, { nil: undefined })).map((v) => [p, v] as const);
  });
  // Strings of whole graphemes, beyond ASCII too: fast-check's default unit for JSON ('binary')
  // builds a map of every code point (about 100 MB) the first time a value is shrunk or sliced.
  const jsonText = fc.option(
    fc
      .oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2, stringUnit: 'grapheme' }))
      .filter((value) => engine.spec.validator.matches(op.requestSchema, value))
      .map((value) => JSON.stringify(value)),
    { nil: undefined },
  );
  return fc
    .record({
      entries: fc.tuple(...entries),
      grant,
      scheme: fc.constantFrom('Bearer ', 'bearer ', 'BEARER ', 'Bearer  '),
      contentType: mediaTypeArb(op),
      body: op.requestMediaTypes === undefined ? fc.constant(undefined) : jsonText,
      nameCase: fc.array(fc.boolean(), { maxLength: 40 }),
      overEncode: fc.option(fc.array(fc.boolean(), { maxLength: 40 }), { nil: undefined }),
      head: fc.boolean(),
    })
    .map(
      ({ entries: pairs, head, ...rest }): Draft =>
        printable<Draft>(
          {
            ...rest,
            operation: op,
            // HEAD is GET without the body (RFC 9110), wherever GET is.
            method: op.method === 'GET' && head ? 'HEAD' : op.method,
            values: new Map(
              pairs.flatMap(([p, v]) =>
                v === undefined ? [] : [[p, v] as [SpecParameter, Value]],
              ),
            ),
            extraQuery: [],
          },
          showDraft,
        ),
    );
}

/** What is wrong with a request, the answer it must get, and the rule that says so. */
export interface Defect {
  readonly apply: (draft: Draft) => Draft;
  readonly rule: RuleName;
  readonly status: number;
  readonly code: string;
  /** The `errors[].path` a validation failure must name. */
  readonly errorPath?: string;
}

const ERROR_LOCATION: Readonly<Record<ParameterLocation, string>> = {
  path: 'params',
  query: 'query',
  header: 'headers',
};
const errorPathOf = (location: ParameterLocation, name: string) =>
  `/${ERROR_LOCATION[location]}/${location === 'header' ? name.toLowerCase() : name}`;

/** The request body limit (the spec's description, "Limits": 16 KiB). */
const BODY_LIMIT_BYTES = 16 * 1024;

/** A request the spec's validation refuses: 400 `VALIDATION_FAILED` naming `errorPath`. */
const validationDefect = (
  apply: Defect['apply'],
  errorPath: string,
  rule: RuleName = 'invalid-refused',
): Defect => ({ apply, rule, status: 400, code: 'VALIDATION_FAILED', errorPath });

/** A parameter's defects: a value it does not take, a path's bad encoding, a required one left out. */
function parameterDefectArbs(spec: Spec, p: SpecParameter): fc.Arbitrary<Defect>[] {
  // A path parameter names the record: a value it does not take is a malformed identifier.
  const rule: RuleName = p.in === 'path' ? 'malformed-identifier' : 'invalid-refused';
  const errorPath = errorPathOf(p.in, p.name);
  const invalid = (value: Value) =>
    validationDefect((draft) => setValue(draft, p, value), errorPath, rule);
  const arbs: fc.Arbitrary<Defect>[] = [];
  const invalidText = invalidTextArb(spec, p);
  if (invalidText !== undefined) arbs.push(invalidText.map((text) => invalid({ text })));
  if (p.in === 'path' && invalidText !== undefined) {
    arbs.push(badEncodingArb.map((text) => invalid({ text, raw: true })));
  }
  if (p.in !== 'path' && p.required) {
    arbs.push(fc.constant(validationDefect((draft) => setValue(draft, p, undefined), errorPath)));
  }
  return arbs;
}

/** A query parameter the operation does not declare. */
function undeclaredQueryArb(op: SpecOperation): fc.Arbitrary<Defect> {
  const declared = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  return fc
    .tuple(
      fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/).filter((name) => !declared.has(name)),
      fc.string({ unit: 'grapheme', maxLength: 10 }),
    )
    .map(([name, text]) =>
      validationDefect(
        (draft) => ({ ...draft, extraQuery: [...draft.extraQuery, [name, text]] }),
        errorPathOf('query', name),
      ),
    );
}

/** A body's media type the operation does not take (or none): 415. */
function unsupportedMediaTypeArb(mediaTypes: readonly string[]): fc.Arbitrary<Defect> {
  const documented = new Set(mediaTypes.map((m) => m.toLowerCase()));
  return fc
    .oneof(
      fc.constant(undefined),
      fc.constantFrom(
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/json-patch+json',
        '*/*',
        'json',
      ),
      fc
        .tuple(fc.stringMatching(/^[a-z]{1,12}$/), fc.stringMatching(/^[a-z0-9.+-]{1,16}$/))
        .map(([type, subtype]) => `${type}/${subtype}`),
    )
    .filter((t) => t === undefined || !documented.has(t.split(';')[0]?.trim() ?? ''))
    .map(
      (contentType): Defect => ({
        apply: (draft) => ({ ...draft, contentType }),
        rule: 'invalid-refused',
        status: 415,
        code: 'UNSUPPORTED_MEDIA_TYPE',
      }),
    );
}

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** A body that is not JSON, sent as `contentType`: 400 `MALFORMED_JSON`. */
const malformedJsonArb = (contentType: string | undefined): fc.Arbitrary<Defect> =>
  fc
    .oneof(
      fc.constantFrom('{', '{"a":', 'undefined', "{'a':1}", 'nul', '[1,]', ' '),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
    )
    .filter((text) => !isJson(text))
    .map(
      (body): Defect => ({
        apply: (draft) => ({ ...draft, contentType, body }),
        rule: 'invalid-refused',
        status: 400,
        code: 'MALFORMED_JSON',
      }),
    );

/** A JSON body over the limit, sent as `contentType`: 413. */
const oversizedBodyArb = (contentType: string | undefined): fc.Arbitrary<Defect> =>
  fc.integer({ min: BODY_LIMIT_BYTES + 1, max: BODY_LIMIT_BYTES + 4096 }).map(
    (size): Defect => ({
      apply: (draft) => ({
        ...draft,
        contentType,
        body: JSON.stringify({ padding: 'x'.repeat(size) }),
      }),
      rule: 'invalid-refused',
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
    }),
  );

/**
 * What can be wrong with a request of `op`, field by field, each with the answer it must get: a
 * parameter, an undeclared query parameter and, for an operation that takes a body, the media
 * type, the JSON and the size.
 */
export function defectArb(spec: Spec, op: SpecOperation): fc.Arbitrary<Defect> {
  const mediaTypes = op.requestMediaTypes;
  const arbs = [
    ...op.parameters.flatMap((p) => parameterDefectArbs(spec, p)),
    undeclaredQueryArb(op),
    ...(mediaTypes === undefined
      ? []
      : [
          unsupportedMediaTypeArb(mediaTypes),
          malformedJsonArb(mediaTypes[0]),
          oversizedBodyArb(mediaTypes[0]),
        ]),
  ];
  return fc
    .oneof(...arbs)
    .map((defect) =>
      printable(
        defect,
        (d) => `which must get ${d.status} ${d.code}${d.errorPath ? ` naming ${d.errorPath}` : ''}`,
      ),
    );
}
