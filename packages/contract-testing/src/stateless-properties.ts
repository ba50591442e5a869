// Stateless properties: requests generated from each operation's parameter schemas (valid ones,
// and invalid ones field by field), sent one at a time; every answer is held to what the spec
// documents for the operation. The few rules the spec states only in prose (the body limit, the
// media type of unarchive, unknown paths, the reuse of X-Request-Id) are written out here.
import fc from 'fast-check';
import {
  type Call,
  contextHeaderOf,
  type Engine,
  observe,
  probeUnchanged,
  ROLE_NAMES,
  ROLES,
  type Role,
  recordNamed,
} from './contract-model.js';
import { headerOf, type WireRequest } from './http-client.js';
import {
  beginRun,
  type ContractProperty,
  type PropertyDefinition,
  recorded,
} from './property-runner.js';
import {
  check,
  checkDocumented,
  checkMatches,
  checkProblem,
  jsonOf,
  problemOf,
  show,
} from './response-checks.js';
import {
  isUnconstrained,
  isValidText,
  OPENAPI_METHODS,
  onWire,
  type ParameterLocation,
  type Spec,
  type SpecOperation,
  type SpecParameter,
} from './spec-reader.js';
import type { Grant } from './token-source.js';

/** Characters a header value may carry on the wire (Node refuses the rest). */
const HEADER_CHARS = [
  '\t',
  ...Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i)),
  ...Array.from({ length: 0x60 }, (_, i) => String.fromCharCode(0xa0 + i)),
];
const PRINTABLE = HEADER_CHARS.filter((c) => c >= ' ' && c <= '~');
const sendableInHeader = (text: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(text);
const encodable = (text: string) => {
  try {
    encodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};
const decodable = (text: string) => {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

const headerTextArb = fc.oneof(
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

/** Text that is valid for `p` by its schema alone. */
function schemaTextArb(spec: Spec, p: SpecParameter): fc.Arbitrary<string> {
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

/**
 * Percent-encodes `text` for a path segment or a query value; the characters `mask` marks are
 * encoded even when they need not be, in upper or lower case hex: the same value (RFC 3986).
 */
function percentEncode(text: string, mask: readonly boolean[] | undefined): string {
  if (mask === undefined) return encodeURIComponent(text);
  return [...text]
    .map((char, i) => {
      if (!mask[i]) return encodeURIComponent(char);
      const hex = Buffer.from(char, 'utf8').toString('hex');
      return (i % 2 === 0 ? hex.toUpperCase() : hex).replace(/(..)/g, '%$1');
    })
    .join('');
}

/** A value as sent: percent-encoded in its place, or `raw`, as is, in a path. */
interface Value {
  readonly text: string;
  readonly raw?: true;
}

const anyCaseArb = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) =>
      [...text].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join(''),
    );

/** Path segments that are not valid percent-encoding. */
const badEncodingArb = fc
  .tuple(
    fc.stringMatching(/^[A-Za-z0-9:_-]{0,8}$/),
    fc.constantFrom('%', '%G1', '%E0%A4', '%ED%A0%80', '%C0%AF', '%FF', '%2'),
    fc.stringMatching(/^[A-Za-z0-9_-]{0,8}$/),
  )
  .map((parts) => parts.join(''))
  .filter((text) => !decodable(text));

/**
 * External identifiers (`{namingAuthority}:{value}`) of records no seed has: ASCII ones, or, with
 * `beyondAscii`, ones whose value ends in characters beyond ASCII.
 */
const externalIdArb = (beyondAscii: boolean) =>
  fc
    .tuple(
      fc.stringMatching(/^[A-Z]{1,8}$/),
      fc.stringMatching(/^[A-Za-z0-9-]{0,8}$/),
      fc.array(nonAsciiArb, { minLength: beyondAscii ? 1 : 0, maxLength: beyondAscii ? 4 : 0 }),
    )
    .map(([authority, value, extra]) => `${authority}:${value}${extra.join('')}`);

/** Whether path parameter `p` takes external identifiers, beyond ASCII too. */
const acceptsExternalIds = (spec: Spec, p: SpecParameter) =>
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
function validValueArb(engine: Engine, op: SpecOperation, p: SpecParameter): fc.Arbitrary<Value> {
  const fromSchema = schemaTextArb(engine.spec, p).map((text): Value => ({ text }));
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
function invalidTextArb(spec: Spec, p: SpecParameter): fc.Arbitrary<string> | undefined {
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
        (p.in !== 'path' || text !== ''),
    );
}

/** A request before it is put on the wire. */
interface Draft {
  readonly operation: SpecOperation;
  readonly method: string;
  readonly values: ReadonlyMap<SpecParameter, Value>;
  readonly extraQuery: readonly (readonly [string, string])[];
  readonly grant: Grant;
  readonly scheme: string;
  readonly contentType: string | undefined;
  readonly body: string | undefined;
  /** Which letters of header names to send in upper case (names are case-insensitive). */
  readonly nameCase: readonly boolean[];
  /** Which characters of path and query values to percent-encode though they need not be. */
  readonly overEncode: readonly boolean[] | undefined;
}

const withCase = (name: string, upper: readonly boolean[]) =>
  [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join('');

async function draftToWire(engine: Engine, draft: Draft): Promise<WireRequest> {
  const { operation } = draft;
  const path = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const p = operation.parameters.find((q) => q.in === 'path' && q.name === name);
    const value = p === undefined ? undefined : draft.values.get(p);
    if (value === undefined) throw new Error(`no value for path parameter ${name}`);
    return value.raw ? value.text : percentEncode(value.text, draft.overEncode);
  });
  const query = [
    ...operation.parameters.flatMap((p) => {
      const value = p.in === 'query' ? draft.values.get(p) : undefined;
      return value === undefined ? [] : [[p.name, value.text] as const];
    }),
    ...draft.extraQuery,
  ]
    .map(([name, text]) => `${encodeURIComponent(name)}=${percentEncode(text, draft.overEncode)}`)
    .join('&');
  const headers: Record<string, string> = {};
  for (const p of operation.parameters) {
    const value = p.in === 'header' ? draft.values.get(p) : undefined;
    if (value !== undefined) headers[withCase(p.name, draft.nameCase)] = value.text;
  }
  headers.Authorization = `${draft.scheme}${await engine.tokens.token(draft.grant)}`;
  if (draft.contentType !== undefined) headers['Content-Type'] = draft.contentType;
  if (draft.body !== undefined || operation.requestMediaTypes !== undefined) {
    headers['Content-Length'] = String(Buffer.byteLength(draft.body ?? ''));
  }
  return {
    method: draft.method,
    path: query === '' ? path : `${path}?${query}`,
    headers,
    ...(draft.body === undefined ? {} : { body: draft.body }),
  };
}

function showDraft(draft: Draft): string {
  const values = [...draft.values].map(([p, v]) => `${p.name}=${JSON.stringify(v.text)}`);
  const extra = draft.extraQuery.map(([n, v]) => `${n}=${JSON.stringify(v)}`);
  return `${draft.method} ${draft.operation.template} ${[...values, ...extra].join(' ')}${
    draft.contentType === undefined ? '' : ` (${draft.contentType})`
  }${draft.body === undefined ? '' : ` body ${JSON.stringify(draft.body.slice(0, 60))}`}`;
}

const printable = <T extends object>(value: T, text: (self: T) => string): T =>
  Object.assign(value, {
    [fc.toStringMethod](this: T) {
      return text(this);
    },
  });

const grantArb = (engine: Engine): fc.Arbitrary<Grant> =>
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

function validDraftArb(
  engine: Engine,
  op: SpecOperation,
  grant: fc.Arbitrary<Grant>,
): fc.Arbitrary<Draft> {
  const entries = op.parameters.map((p) => {
    const value = validValueArb(engine, op, p);
    return (p.required ? value : fc.option(value, { nil: undefined })).map((v) => [p, v] as const);
  });
  const jsonText = fc.option(
    fc
      .oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 }))
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

/** What is wrong with a request, and the answer it must get. */
interface Defect {
  readonly apply: (draft: Draft) => Draft;
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

const setValue = (draft: Draft, p: SpecParameter, value: Value | undefined): Draft => {
  const values = new Map(draft.values);
  if (value === undefined) values.delete(p);
  else values.set(p, value);
  return { ...draft, values };
};

/** The request body limit (the spec's description, "Limits": 16 KiB). */
const BODY_LIMIT_BYTES = 16 * 1024;

function defectArb(spec: Spec, op: SpecOperation): fc.Arbitrary<Defect> {
  const arbs: fc.Arbitrary<Defect>[] = [];
  const invalidParameter = (p: SpecParameter, value: Value): Defect => ({
    apply: (draft) => setValue(draft, p, value),
    status: 400,
    code: 'VALIDATION_FAILED',
    errorPath: errorPathOf(p.in, p.name),
  });
  for (const p of op.parameters) {
    const invalid = invalidTextArb(spec, p);
    if (invalid !== undefined) arbs.push(invalid.map((text) => invalidParameter(p, { text })));
    if (p.in === 'path' && invalid !== undefined) {
      arbs.push(badEncodingArb.map((text) => invalidParameter(p, { text, raw: true })));
    }
    if (p.in !== 'path' && p.required) {
      arbs.push(
        fc.constant<Defect>({
          apply: (draft) => setValue(draft, p, undefined),
          status: 400,
          code: 'VALIDATION_FAILED',
          errorPath: errorPathOf(p.in, p.name),
        }),
      );
    }
  }
  const declared = new Set(op.parameters.filter((p) => p.in === 'query').map((p) => p.name));
  arbs.push(
    fc
      .tuple(
        fc.stringMatching(/^[A-Za-z0-9._~-]{1,20}$/).filter((name) => !declared.has(name)),
        fc.string({ unit: 'grapheme', maxLength: 10 }),
      )
      .map(
        ([name, text]): Defect => ({
          apply: (draft) => ({ ...draft, extraQuery: [...draft.extraQuery, [name, text]] }),
          status: 400,
          code: 'VALIDATION_FAILED',
          errorPath: errorPathOf('query', name),
        }),
      ),
  );
  const mediaTypes = op.requestMediaTypes;
  if (mediaTypes !== undefined) {
    const documented = new Set(mediaTypes.map((m) => m.toLowerCase()));
    arbs.push(
      fc
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
            status: 415,
            code: 'UNSUPPORTED_MEDIA_TYPE',
          }),
        ),
      fc
        .oneof(
          fc.constantFrom('{', '{"a":', 'undefined', "{'a':1}", 'nul', '[1,]', ' '),
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
        )
        .filter((text) => {
          try {
            JSON.parse(text);
            return false;
          } catch {
            return true;
          }
        })
        .map(
          (body): Defect => ({
            apply: (draft) => ({ ...draft, contentType: mediaTypes[0], body }),
            status: 400,
            code: 'MALFORMED_JSON',
          }),
        ),
      fc.integer({ min: BODY_LIMIT_BYTES + 1, max: BODY_LIMIT_BYTES + 4096 }).map(
        (size): Defect => ({
          apply: (draft) => ({
            ...draft,
            contentType: mediaTypes[0],
            body: JSON.stringify({ padding: 'x'.repeat(size) }),
          }),
          status: 413,
          code: 'PAYLOAD_TOO_LARGE',
        }),
      ),
    );
  }
  return fc
    .oneof(...arbs)
    .map((defect) =>
      printable(
        defect,
        (d) =>
          `an input refused with ${d.status} ${d.code}${d.errorPath ? ` at ${d.errorPath}` : ''}`,
      ),
    );
}

/** Codes of a request refused for its form or its credentials, never of one valid and authorized. */
const REFUSAL_CODES = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'INVALID_TOKEN',
  'INSUFFICIENT_SCOPE',
  'RESTAURANT_NOT_PERMITTED',
];

const roleOf = (op: SpecOperation): Role | undefined =>
  ROLE_NAMES.find((role) => ROLES[role] === op.id);

/** The context header's value as the server reads it, when the draft sends one. */
function contextOfDraft(draft: Draft): string | undefined {
  const header = contextHeaderOf(draft.operation);
  const value = header === undefined ? undefined : draft.values.get(header);
  return value === undefined ? undefined : onWire(value.text);
}

/** The state-table call a draft is, when it is one (for the knowledge and the probes). */
function callOfDraft(draft: Draft): Call | undefined {
  const role = roleOf(draft.operation);
  const header = contextHeaderOf(draft.operation);
  const context = header === undefined ? undefined : draft.values.get(header);
  const pathParameter = draft.operation.parameters.find((p) => p.in === 'path');
  const id = pathParameter === undefined ? undefined : draft.values.get(pathParameter);
  if (role === undefined || context === undefined || id === undefined || id.raw) return undefined;
  return { role, context: onWire(context.text), grant: draft.grant, id: id.text };
}

function grantAllows(grant: Grant, op: SpecOperation, context: string | undefined): boolean {
  if (!grant.scopes.includes(op.scope)) return false;
  if (grant.restaurants === '*') return true;
  return context !== undefined && grant.restaurants.includes(context.toLowerCase());
}

export function statelessProperties(engine: Engine): PropertyDefinition[] {
  const { spec } = engine;
  const full: Grant = { scopes: spec.scopes, restaurants: '*' };
  const definitions: PropertyDefinition[] = [];
  for (const op of spec.operations) {
    definitions.push({
      name: `stateless.${op.id}.valid-requests`,
      group: 'stateless',
      summary: `generated valid requests of ${op.id} (existing and missing records, any grant) get a documented answer, never a 5xx; a valid, authorized one is not refused`,
      build: (e) =>
        fc.asyncProperty(
          validDraftArb(e, op, grantArb(e)),
          recorded(e, async (draft) => {
            await beginRun(e, { fresh: false });
            const req = await draftToWire(e, draft);
            const res = await e.client.send(req);
            const call = callOfDraft(draft);
            if (call !== undefined) observe(e, e.knowledge, call, res);
            checkDocumented(spec, op, req, res);
            const context = contextOfDraft(draft);
            if (!draft.grant.scopes.includes(op.scope)) {
              checkProblem('insufficient-scope', req, res, 403, 'INSUFFICIENT_SCOPE');
            } else if (!grantAllows(draft.grant, op, context)) {
              checkProblem('restaurant-not-permitted', req, res, 403, 'RESTAURANT_NOT_PERMITTED');
            } else if (req.method !== 'HEAD' && res.status >= 400) {
              const code = String(problemOf(res).code);
              check(!REFUSAL_CODES.includes(code), 'valid-accepted', () => show(req, res));
            }
          }),
        ) as unknown as ContractProperty,
    });
    definitions.push({
      name: `stateless.${op.id}.invalid-input`,
      group: 'stateless',
      summary: `invalid input to ${op.id}, field by field (parameters, media type, body), is the documented 4xx naming the input, and changes nothing`,
      build: (e) =>
        fc.asyncProperty(
          validDraftArb(e, op, fc.constant(full)),
          defectArb(spec, op),
          recorded(e, async (valid, defect) => {
            await beginRun(e, { fresh: false });
            const draft = defect.apply(valid);
            const req = await draftToWire(e, draft);
            const res = await e.client.send(req);
            const call = callOfDraft(draft);
            if (call !== undefined) observe(e, e.knowledge, call, res);
            checkDocumented(spec, op, req, res);
            checkProblem('invalid-refused', req, res, defect.status, defect.code);
            if (defect.errorPath !== undefined && req.method !== 'HEAD') {
              const paths = (problemOf(res).errors ?? []).map((error) =>
                String(error.path).toLowerCase(),
              );
              check(
                paths.includes(defect.errorPath.toLowerCase()),
                'error-path',
                () => `expected ${defect.errorPath} in errors: ${show(req, res)}`,
              );
            }
            const named = callOfDraft(valid);
            const record = named === undefined ? undefined : recordNamed(e, named);
            if (record !== undefined)
              await probeUnchanged(e, record, { request: req, response: res });
          }),
        ) as unknown as ContractProperty,
    });
    const defaulted = op.parameters.filter((p) => !p.required && p.schema.default !== undefined);
    if (defaulted.length > 0 && ['GET', 'HEAD'].includes(op.method)) {
      definitions.push({
        name: `stateless.${op.id}.default-parameters`,
        group: 'stateless',
        summary: `an optional parameter of ${op.id} sent with its default is answered as when left out`,
        runs: (runs) => Math.ceil(runs / 2),
        build: (e) =>
          fc.asyncProperty(
            validDraftArb(e, op, fc.constant(full)),
            fc.constantFrom(...defaulted),
            recorded(e, async (valid, p) => {
              await beginRun(e, { fresh: false });
              const plain = { ...valid, method: op.method };
              const left = await draftToWire(e, setValue(plain, p, undefined));
              const given = await draftToWire(
                e,
                setValue(plain, p, { text: String(p.schema.default) }),
              );
              const a = await e.client.send(left);
              const b = await e.client.send(given);
              checkDocumented(spec, op, left, a);
              checkDocumented(spec, op, given, b);
              const strip = (text: string) => {
                const {
                  requestId: _r,
                  instance: _i,
                  ...rest
                } = (jsonOf({
                  status: 0,
                  headers: {},
                  text,
                }) ?? {}) as Record<string, unknown>;
                return JSON.stringify(rest);
              };
              check(
                a.status === b.status && strip(a.text) === strip(b.text),
                'default-parameter',
                () => `${show(left, a)}\nbut ${show(given, b)}`,
              );
            }),
          ) as unknown as ContractProperty,
      });
    }
  }
  for (const op of spec.operations) {
    const definition = externalIdentifiers(engine, op);
    if (definition !== undefined) definitions.push(definition);
  }
  definitions.push(wrongMethod(engine), unknownPath(engine));
  return definitions;
}

/**
 * Every well-formed external identifier of a path parameter that takes them, ASCII or not, reaches the
 * store (a full grant, a valid request) and is answered as documented: found or not, never a 5xx.
 * Its own property, so that each run reaches the store: the valid requests draw these too, but
 * rarely authorized and valid all at once.
 */
function externalIdentifiers(engine: Engine, op: SpecOperation): PropertyDefinition | undefined {
  const p = op.parameters.find((q) => acceptsExternalIds(engine.spec, q));
  if (p === undefined) return undefined;
  const full: Grant = { scopes: engine.spec.scopes, restaurants: '*' };
  return {
    name: `stateless.${op.id}.external-identifiers`,
    group: 'stateless',
    summary: `any well-formed external identifier, ASCII or beyond, given to ${op.id} gets a documented answer, never a 5xx`,
    runs: (runs) => Math.ceil(runs / 2),
    build: (e) =>
      fc.asyncProperty(
        validDraftArb(e, op, fc.constant(full)),
        fc
          .oneof(externalIdArb(false), externalIdArb(true))
          .filter((text) => isValidText(e.spec, p, text)),
        recorded(e, async (valid, externalId) => {
          await beginRun(e, { fresh: false });
          const req = await draftToWire(e, setValue(valid, p, { text: externalId }));
          const res = await e.client.send(req);
          checkDocumented(e.spec, op, req, res);
        }),
      ) as unknown as ContractProperty,
  };
}

/** The methods a path answers: its operations', and HEAD wherever GET is (RFC 9110). */
const allowedOn = (ops: readonly SpecOperation[]) => {
  const methods = ops.map((op) => op.method);
  return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
};

function wrongMethod(engine: Engine): PropertyDefinition {
  const { spec } = engine;
  const paths = [...spec.paths.entries()];
  return {
    name: 'stateless.paths.method-not-allowed',
    group: 'stateless',
    summary:
      'a path of the spec with a method it does not support is 405 with Allow, and changes nothing',
    runs: (runs) => Math.ceil(runs / 2),
    build: (e) =>
      fc.asyncProperty(
        fc
          .constantFrom(...paths)
          .chain(([template, ops]) =>
            fc.tuple(
              fc.constant(template),
              fc.constant(ops),
              fc.constantFrom(
                ...OPENAPI_METHODS.map((m) => m.toUpperCase()).filter(
                  (m) => !allowedOn(ops).includes(m),
                ),
              ),
              fc.array(
                fc.oneof(
                  fc.stringMatching(/^[A-Za-z0-9:_-]{1,40}$/),
                  fc
                    .string({ unit: 'grapheme', minLength: 1, maxLength: 20 })
                    .map(encodeURIComponent),
                ),
                { minLength: 4, maxLength: 4 },
              ),
            ),
          ),
        recorded(e, async ([template, ops, method, segments]) => {
          await beginRun(e, { fresh: false });
          let i = 0;
          const path = template.replace(/\{[^}]+\}/g, () => segments[i++] ?? 'x');
          const req: WireRequest = {
            method,
            path,
            headers: {
              Authorization: `Bearer ${await e.tokens.token({ scopes: spec.scopes, restaurants: '*' })}`,
            },
          };
          const res = await e.client.send(req);
          check(res.status === 405, 'method-not-allowed', () => show(req, res));
          const allow = (headerOf(res, 'Allow') ?? '').split(',').map((m) => m.trim());
          const expected = new Set(allowedOn(ops));
          check(
            allow.length === expected.size && allow.every((m) => expected.has(m)),
            'method-not-allowed',
            () => `Allow: ${headerOf(res, 'Allow')}, expected ${[...expected].join(', ')}`,
          );
          for (const op of ops) checkDocumented(spec, op, req, res);
          if (method !== 'HEAD')
            checkProblem('method-not-allowed', req, res, 405, 'METHOD_NOT_ALLOWED');
        }),
      ) as unknown as ContractProperty,
  };
}

function unknownPath(engine: Engine): PropertyDefinition {
  const { spec } = engine;
  const segment = fc.oneof(
    fc.constantFrom('', 'x', '..', '.', ...spec.literalSegments),
    fc.stringMatching(/^[A-Za-z0-9._~:-]{1,12}$/),
  );
  const nearMiss = fc
    .tuple(fc.constantFrom(...spec.paths.keys()), fc.integer({ min: 0, max: 4 }), segment)
    .map(([template, edit, extra]) => {
      const concrete = template.replace(/\{[^}]+\}/g, 'a1b2');
      const parts = concrete.split('/');
      if (edit === 0) return `${concrete}/`;
      if (edit === 1) return `${concrete}/${extra}`;
      if (edit === 2) return parts.slice(0, -1).join('/');
      const at = 3 + (parts.length - 3 > 0 ? edit % (parts.length - 3) : 0);
      const literal = parts[at] ?? '';
      parts[at] = edit === 3 ? literal.toUpperCase() : `${literal}${extra}s`;
      return parts.join('/');
    });
  const anyUnder = fc
    .tuple(fc.constantFrom(...spec.prefixes), fc.array(segment, { maxLength: 4 }))
    .map(([prefix, rest]) => [prefix, ...rest].join('/'));
  return {
    name: 'stateless.paths.unknown',
    group: 'stateless',
    summary: 'a path under the API that names no operation is 404 NOT_FOUND, whatever the method',
    runs: (runs) => Math.ceil(runs / 2),
    build: (e) =>
      fc.asyncProperty(
        fc.oneof(nearMiss, anyUnder).filter((path) => !spec.matchesTemplate(path)),
        fc.constantFrom(...OPENAPI_METHODS.map((m) => m.toUpperCase())),
        recorded(e, async (path, method) => {
          await beginRun(e, { fresh: false });
          const req: WireRequest = {
            method,
            path,
            headers: {
              Authorization: `Bearer ${await e.tokens.token({ scopes: spec.scopes, restaurants: '*' })}`,
            },
          };
          const res = await e.client.send(req);
          check(res.status === 404, 'unknown-path', () => show(req, res));
          checkMatches(spec, spec.notFound, req, res);
        }),
      ) as unknown as ContractProperty,
  };
}
