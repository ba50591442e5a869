// Spec-driven property tests: requests generated from the parameter schemas of
// openapi/openapi.yaml (`openapiDocument`), sent over HTTP to the router over a seeded memory
// store, and every answer held to what the spec documents for its operation: no 5xx; a documented
// status, media type, headers and body schema, with a problem code documented for that status;
// invalid input refused with a 4xx that changes nothing; a bad token 401 whatever else the request
// carries; a missing required header 400. The operations, their parameters, responses, headers,
// schemas, codes and scopes are all read from the spec; the few rules it states only in prose (the
// body limit and media type, unknown paths, the reuse of X-Request-Id) are written out below.
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import {
  createMemoryStore,
  type ExternalId,
  type MemoryStore,
  type Restaurant,
  type Seed,
} from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aSeed,
  aShift,
} from '@workforce-kit/core/testing';
import { createJwtVerifier, type RouterOptions } from '@workforce-kit/express-adapter';
import { openapiDocument } from '@workforce-kit/types';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { delegatingStore, signJwt, startRouterServer } from '../support/router-server.js';

// ---------------------------------------------------------------------------------------------
// The spec, read once
// ---------------------------------------------------------------------------------------------

interface SchemaObject {
  readonly $ref?: string;
  readonly allOf?: readonly SchemaNode[];
  readonly if?: SchemaNode;
  readonly then?: SchemaNode;
  readonly else?: SchemaNode;
  readonly type?: string;
  readonly const?: unknown;
  readonly enum?: readonly unknown[];
  readonly pattern?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, SchemaNode>>;
  readonly additionalProperties?: SchemaNode;
  readonly propertyNames?: SchemaNode;
  readonly items?: SchemaNode;
  readonly default?: unknown;
}
type SchemaNode = boolean | SchemaObject;

type Location = 'path' | 'query' | 'header';
interface SpecParameter {
  readonly name: string;
  readonly in: Location;
  readonly required: boolean;
  readonly schema: SchemaObject;
}
interface SpecHeader {
  readonly required: boolean;
  readonly schema: SchemaObject;
}
interface SpecResponse {
  readonly content: ReadonlyMap<string, SchemaNode>;
  readonly headers: ReadonlyMap<string, SpecHeader>;
}
interface SpecOperation {
  readonly id: string;
  readonly method: string;
  readonly template: string;
  readonly scope: string;
  readonly parameters: readonly SpecParameter[];
  readonly responses: ReadonlyMap<string, SpecResponse>;
  /** The media types of the request body, when the operation takes one. */
  readonly requestMediaTypes: readonly string[] | undefined;
  /** The schema of the request body (of its first media type). */
  readonly requestSchema: SchemaNode;
}

interface RawOperation {
  readonly operationId: string;
  readonly security?: readonly Readonly<Record<string, readonly string[]>>[];
  readonly parameters?: readonly unknown[];
  readonly requestBody?: unknown;
  readonly responses: Readonly<Record<string, unknown>>;
}
interface RawResponse {
  readonly content?: Readonly<Record<string, { readonly schema?: SchemaNode }>>;
  readonly headers?: Readonly<Record<string, unknown>>;
}

/** The methods a path item may hold (OpenAPI 3.1). */
const OPENAPI_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Keywords that describe and do not constrain; any other keyword must be checked below. */
const ANNOTATIONS = new Set([
  'description',
  'examples',
  'example',
  'title',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);
const ASSERTIONS = new Set([
  '$ref',
  'allOf',
  'if',
  'then',
  'else',
  'type',
  'const',
  'enum',
  'pattern',
  'format',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'required',
  'properties',
  'additionalProperties',
  'propertyNames',
  'items',
]);

const spec = openapiDocument as unknown as {
  readonly paths: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  readonly components: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
};

/** Follows local `$ref`s (`#/components/...`) until a node without one. */
function deref<T>(node: T): T {
  let current: unknown = node;
  for (let hops = 0; hops < 16; hops++) {
    const ref = (current as { $ref?: unknown } | null)?.$ref;
    if (typeof ref !== 'string') return current as T;
    if (!ref.startsWith('#/')) throw new Error(`only local references are followed: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], spec);
    if (current === undefined) throw new Error(`unresolved reference ${ref}`);
  }
  throw new Error('reference cycle');
}

/** Gives a value a short form in fast-check's counterexamples (copies by spread keep it). */
function printable<T extends object>(value: T, show: (self: T) => string): T {
  return Object.assign(value, {
    [fc.toStringMethod](this: T) {
      return show(this);
    },
  });
}

function readResponse(raw: unknown): SpecResponse {
  const response = deref(raw) as RawResponse;
  return {
    content: new Map(
      Object.entries(response.content ?? {}).map(([type, media]) => [
        type.toLowerCase(),
        media.schema ?? true,
      ]),
    ),
    headers: new Map(
      Object.entries(response.headers ?? {}).map(([name, header]) => {
        const { required = false, schema = {} } = deref(header) as {
          required?: boolean;
          schema?: SchemaObject;
        };
        return [name, { required, schema: deref(schema) }];
      }),
    ),
  };
}

function readParameter(raw: unknown): SpecParameter {
  const {
    name,
    in: location,
    required = false,
    schema = {},
  } = deref(raw) as {
    name: string;
    in: Location | 'cookie';
    required?: boolean;
    schema?: SchemaObject;
  };
  if (location === 'cookie') throw new Error(`cookie parameter ${name}: not generated yet`);
  return printable(
    { name, in: location, required: required || location === 'path', schema: deref(schema) },
    (p) => `${p.in} parameter ${p.name}`,
  );
}

function readOperation(
  template: string,
  method: string,
  raw: RawOperation,
  shared: readonly unknown[],
): SpecOperation {
  const own = (raw.parameters ?? []).map(readParameter);
  const inherited = shared
    .map(readParameter)
    .filter((p) => !own.some((o) => o.name === p.name && o.in === p.in));
  const body = deref(raw.requestBody) as
    | { content?: Readonly<Record<string, { schema?: SchemaNode }>> }
    | undefined;
  const scope = Object.values(raw.security?.[0] ?? {})[0]?.[0];
  if (scope === undefined) throw new Error(`${raw.operationId} names no scope`);
  return printable(
    {
      id: raw.operationId,
      method: method.toUpperCase(),
      template,
      scope,
      parameters: [...inherited, ...own],
      responses: new Map(
        Object.entries(raw.responses).map(([status, r]) => [status, readResponse(r)]),
      ),
      requestMediaTypes: body === undefined ? undefined : Object.keys(body.content ?? {}),
      requestSchema: Object.values(body?.content ?? {})[0]?.schema ?? true,
    },
    (op) => op.id,
  );
}

const OPERATIONS: readonly SpecOperation[] = Object.entries(spec.paths).flatMap(
  ([template, item]) =>
    OPENAPI_METHODS.flatMap((method) => {
      const raw = item[method] as RawOperation | undefined;
      const shared = (item.parameters ?? []) as readonly unknown[];
      return raw === undefined ? [] : [readOperation(template, method, raw, shared)];
    }),
);

/** The paths of the spec, with their operations. */
const PATHS: ReadonlyMap<string, readonly SpecOperation[]> = new Map(
  [...new Set(OPERATIONS.map((op) => op.template))].map((template) => [
    template,
    OPERATIONS.filter((op) => op.template === template),
  ]),
);

/** A path template as a matcher: a parameter is one non-empty segment. */
function templatePattern(template: string): RegExp {
  const source = template
    .split(/\{[^}]+\}/)
    .map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${source}$`);
}
const TEMPLATE_PATTERNS = [...PATHS.keys()].map(templatePattern);
/** The literal segments of the spec's paths. */
const LITERAL_SEGMENTS = [
  ...new Set([...PATHS.keys()].flatMap((t) => t.split('/')).filter((s) => /^[^{]+$/.test(s))),
];
/** The API's path prefixes (`/labor/v1`, …): a path under one that names no operation is 404. */
const PREFIXES = [...new Set([...PATHS.keys()].map((t) => t.split('/').slice(0, 3).join('/')))];

const schemes = spec.components.securitySchemes as Readonly<
  Record<string, { flows?: Readonly<Record<string, { scopes?: Record<string, string> }>> }>
>;
/** Every scope the spec's security schemes define. */
const ALL_SCOPES = [
  ...new Set(
    Object.values(schemes).flatMap((scheme) =>
      Object.values(scheme.flows ?? {}).flatMap((flow) => Object.keys(flow.scopes ?? {})),
    ),
  ),
];

/** The path-level answer to a path that names no operation (the spec's description, "Errors"). */
const NOT_FOUND_RESPONSE: SpecResponse = {
  content: new Map<string, SchemaNode>([
    [
      'application/problem+json',
      {
        allOf: [
          { $ref: '#/components/schemas/Problem' },
          { properties: { status: { const: 404 }, code: { const: 'NOT_FOUND' } } },
        ],
      },
    ],
  ]),
  headers: new Map([
    [
      'X-Request-Id',
      {
        required: true,
        schema: deref(
          (deref({ $ref: '#/components/headers/X-Request-Id' }) as unknown as SpecHeader).schema,
        ),
      },
    ],
  ]),
};

// ---------------------------------------------------------------------------------------------
// A JSON Schema check of the subset of keywords the spec uses (an unknown keyword fails loudly)
// ---------------------------------------------------------------------------------------------

const regexps = new Map<string, RegExp>();
function regexpOf(pattern: string): RegExp {
  let compiled = regexps.get(pattern);
  if (compiled === undefined) {
    compiled = new RegExp(pattern, 'u');
    regexps.set(pattern, compiled);
  }
  return compiled;
}

const FORMATS: Readonly<Record<string, (value: string) => boolean>> = {
  uuid: (v) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v),
  'date-time': (v) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/i.test(v) &&
    !Number.isNaN(Date.parse(v)),
  uri: (v) => URL.canParse(v),
  email: (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v),
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'null':
      return value === null;
    default:
      throw new Error(`unknown type ${type}`);
  }
}

/** The ways `value` breaks `node`, as readable lines; empty when it matches. */
function schemaErrors(node: SchemaNode, value: unknown, at = ''): string[] {
  if (node === true) return [];
  if (node === false) return [`${at || '/'} is not allowed`];
  for (const keyword of Object.keys(node)) {
    if (!ANNOTATIONS.has(keyword) && !ASSERTIONS.has(keyword)) {
      throw new Error(`the spec uses "${keyword}", which this test does not check yet`);
    }
  }
  const errors: string[] = [];
  const where = at || '/';
  if (node.$ref !== undefined) errors.push(...schemaErrors(deref(node), value, at));
  for (const part of node.allOf ?? []) errors.push(...schemaErrors(part, value, at));
  if (node.if !== undefined) {
    const branch = schemaErrors(node.if, value, at).length === 0 ? node.then : node.else;
    if (branch !== undefined) errors.push(...schemaErrors(branch, value, at));
  }
  if (node.type !== undefined && !hasType(value, node.type)) {
    return [...errors, `${where} is not of type ${node.type}: ${JSON.stringify(value)}`];
  }
  if ('const' in node && !isDeepStrictEqual(value, node.const)) {
    errors.push(`${where} is not ${JSON.stringify(node.const)}: ${JSON.stringify(value)}`);
  }
  if (node.enum !== undefined && !node.enum.some((option) => isDeepStrictEqual(option, value))) {
    errors.push(`${where} is not one of ${JSON.stringify(node.enum)}: ${JSON.stringify(value)}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (node.pattern !== undefined && !regexpOf(node.pattern).test(value)) {
      errors.push(`${where} does not match ${node.pattern}: ${JSON.stringify(value)}`);
    }
    if (node.minLength !== undefined && length < node.minLength) errors.push(`${where} too short`);
    if (node.maxLength !== undefined && length > node.maxLength) errors.push(`${where} too long`);
    if (node.format !== undefined) {
      const check = FORMATS[node.format];
      if (check === undefined) throw new Error(`unknown format ${node.format}`);
      if (!check(value)) errors.push(`${where} is not a ${node.format}: ${JSON.stringify(value)}`);
    }
  }
  if (typeof value === 'number') {
    if (node.minimum !== undefined && value < node.minimum) errors.push(`${where} < minimum`);
    if (node.maximum !== undefined && value > node.maximum) errors.push(`${where} > maximum`);
  }
  if (isObject(value)) {
    for (const name of node.required ?? []) {
      if (!Object.hasOwn(value, name)) errors.push(`${where} lacks ${name}`);
    }
    for (const [name, member] of Object.entries(value)) {
      const declared = node.properties?.[name];
      if (declared !== undefined) errors.push(...schemaErrors(declared, member, `${at}/${name}`));
      else if (node.additionalProperties !== undefined) {
        errors.push(...schemaErrors(node.additionalProperties, member, `${at}/${name}`));
      }
      if (node.propertyNames !== undefined) {
        errors.push(...schemaErrors(node.propertyNames, name, `${at}/${name} (name)`));
      }
    }
  }
  if (Array.isArray(value) && node.items !== undefined) {
    const items = node.items;
    value.forEach((item, i) => {
      errors.push(...schemaErrors(items, item, `${at}/${i}`));
    });
  }
  return errors;
}

/** A parameter or header value from its text, as the spec's simple and form styles read it. */
function fromText(schema: SchemaObject, text: string): unknown {
  switch (schema.type) {
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'integer':
    case 'number':
      return /^-?\d+(?:\.\d+)?$/.test(text) ? Number(text) : text;
    default:
      return text;
  }
}

/** A header value as the server sees it: HTTP strips the whitespace around it. */
const onWire = (value: string) => value.replace(/^[\t ]+|[\t ]+$/g, '');

/** Whether a parameter's schema admits every string (nothing but `type: string`). */
const isUnconstrained = (p: SpecParameter) =>
  p.schema.type === 'string' &&
  Object.keys(p.schema).every((keyword) => keyword === 'type' || ANNOTATIONS.has(keyword));

/** Whether `text`, sent percent-encoded in `p`'s place, is valid for `p`. */
function isValidText(p: SpecParameter, text: string): boolean {
  const value = p.in === 'header' ? onWire(text) : text;
  if (p.in === 'path' && value === '') return false;
  return schemaErrors(p.schema, fromText(p.schema, value)).length === 0;
}

// ---------------------------------------------------------------------------------------------
// The world: a few restaurants (one archived), employees archived and not, shifts with external ids
// ---------------------------------------------------------------------------------------------

interface World {
  readonly seed: Seed;
  readonly restaurants: readonly Restaurant[];
  /** The identifiers of the records of each collection, by the collection's path segment. */
  readonly identifiers: ReadonlyMap<string, readonly string[]>;
}

function aWorld(): World {
  const restaurants = [
    aRestaurant(),
    aRestaurant({ general: { name: 'Noodle Bar', archived: false } }),
    aRestaurant({ general: { name: 'Closed Kitchen', archived: true } }),
  ];
  const employees = restaurants.flatMap((r) => [
    anEmployee(r.guid),
    anArchivedEmployee(r.guid),
    anArchivedEmployee(r.guid, { firstName: 'Jon' }),
  ]);
  const shifts = restaurants.flatMap((r) => [
    // The same external id in every restaurant: only the context's shift answers to it.
    aShift(r.guid, { externalId: 'SCHEDULER:shift-1' as ExternalId }),
    aShift(r.guid, {
      externalId: `POS:${r.guid.slice(0, 8)}` as ExternalId,
      deleted: true,
      deletedDate: '2026-02-01T00:00:00.000Z',
    }),
    aShift(r.guid),
  ]);
  return {
    seed: aSeed({ restaurants, employees, shifts }),
    restaurants,
    identifiers: new Map([
      ['restaurants', restaurants.map((r) => r.guid)],
      ['employees', employees.map((e) => e.guid)],
      [
        'shifts',
        shifts.flatMap((s) => [s.guid, ...(s.externalId === undefined ? [] : [s.externalId])]),
      ],
    ]),
  };
}

interface StoreState {
  readonly events: readonly unknown[];
  readonly records: readonly unknown[];
}

/** Everything the store holds, read back through its repositories, and its events. */
async function stateOf(store: MemoryStore, seed: Seed): Promise<StoreState> {
  const [restaurants, employees, shifts, byExternalId] = await Promise.all([
    Promise.all(seed.restaurants.map((r) => store.restaurants.findByGuid(r.guid))),
    Promise.all(
      seed.employees.map((e) =>
        store.employees.find(e.restaurantGuid, { kind: 'guid', guid: e.guid }),
      ),
    ),
    Promise.all(
      seed.shifts.map((s) => store.shifts.find(s.restaurantGuid, { kind: 'guid', guid: s.guid })),
    ),
    Promise.all(
      seed.shifts.flatMap((s) =>
        s.externalId === undefined
          ? []
          : [store.shifts.find(s.restaurantGuid, { kind: 'externalId', externalId: s.externalId })],
      ),
    ),
  ]);
  const unwrap = (results: readonly { _unsafeUnwrap(): unknown }[]) =>
    results.map((result) => result._unsafeUnwrap());
  return {
    events: [...store.recordedEvents()],
    records: [restaurants, employees, shifts, byExternalId].flatMap(unwrap),
  };
}

// ---------------------------------------------------------------------------------------------
// Tokens (HS256, signed here) and the app under test
// ---------------------------------------------------------------------------------------------

const SECRET = 'spec-driven-property-secret-0123456789abcdef';
const nowSeconds = () => Math.floor(Date.now() / 1000);
/** A JWT over the claims, HS256 (or `alg`) with the suite's secret (or `secret`). */
const signToken = (
  claims: Readonly<Record<string, unknown>>,
  { secret = SECRET, alg = 'HS256' }: { secret?: string; alg?: 'HS256' | 'HS512' | 'none' } = {},
): string => signJwt(claims, secret, alg);

interface Grant {
  readonly scopes: readonly string[];
  readonly restaurants: readonly string[] | '*';
}
const FULL_GRANT: Grant = { scopes: ALL_SCOPES, restaurants: '*' };
const claimsOf = (grant: Grant) => ({
  scope: grant.scopes.join(' '),
  restaurants: grant.restaurants,
  iat: nowSeconds(),
  exp: nowSeconds() + 900,
});
const bearer = (grant: Grant) => `Bearer ${signToken(claimsOf(grant))}`;

interface RunningApp {
  readonly port: number;
  readonly world: World;
  /** The store the router works on now. */
  readonly store: MemoryStore;
  /** Puts the router on a fresh store of the seeded world. */
  reset(): void;
  close(): Promise<void>;
}

async function startApp(rateLimit: NonNullable<RouterOptions['rateLimit']>): Promise<RunningApp> {
  const world = aWorld();
  let store = createMemoryStore(world.seed);
  const server = await startRouterServer({
    store: delegatingStore(() => store),
    auth: createJwtVerifier({ hs256Secret: SECRET }),
    validateResponses: true,
    rateLimit,
  });
  return {
    port: server.port,
    world,
    get store() {
      return store;
    },
    reset() {
      store = createMemoryStore(world.seed);
    },
    close: () => server.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// Requests on the wire
// ---------------------------------------------------------------------------------------------

interface WireRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}
interface WireResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
let requestsSent = 0;
const statusesSeen = new Map<number, number>();

function send(port: number, req: WireRequest): Promise<WireResponse> {
  requestsSent++;
  return new Promise<WireResponse>((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, method: req.method, path: req.path, headers: req.headers, agent },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(req.body);
  }).then((res) => {
    statusesSeen.set(res.status, (statusesSeen.get(res.status) ?? 0) + 1);
    return res;
  });
}

const show = (req: WireRequest, res: WireResponse) =>
  `${req.method} ${req.path} ${JSON.stringify(req.headers)} ${req.body?.slice(0, 80) ?? ''} -> ${res.status} ${res.text.slice(0, 300)}`;

const headerOf = (res: WireResponse, name: string): string | undefined => {
  const value = res.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
};

interface ProblemBody {
  readonly status?: unknown;
  readonly code?: unknown;
  readonly requestId?: unknown;
  readonly errors?: readonly { readonly path?: unknown }[];
}

function bodyOf(res: WireResponse): ProblemBody {
  return JSON.parse(res.text) as ProblemBody;
}

/** The problem codes a response documents: the `code` enums (or consts) of its schemas. */
function documentedCodes(node: SchemaNode | undefined): string[] {
  if (node === undefined || typeof node === 'boolean') return [];
  const resolved = deref(node);
  const code = resolved.properties?.code;
  const own =
    code === undefined || typeof code === 'boolean'
      ? []
      : [...(code.enum ?? []), ...('const' in code ? [code.const] : [])].map(String);
  return [...own, ...(resolved.allOf ?? []).flatMap(documentedCodes)];
}

/** The client's X-Request-Id is reused when printable ASCII of at most 128 characters. */
function expectRequestId(req: WireRequest, res: WireResponse): void {
  const id = headerOf(res, 'X-Request-Id');
  expect(id, 'X-Request-Id on every response').toBeTruthy();
  const sentName = Object.keys(req.headers).find((name) => name.toLowerCase() === 'x-request-id');
  if (sentName === undefined) return;
  const sent = onWire(req.headers[sentName] ?? '');
  if (sent !== '' && sent.length <= 128 && /^[\x20-\x7e]+$/.test(sent)) expect(id).toBe(sent);
  else expect(id).not.toBe(sent);
}

/** The answer matches a documented response: headers, media type, body schema, problem code. */
function expectMatches(response: SpecResponse, req: WireRequest, res: WireResponse): void {
  const where = show(req, res);
  for (const [name, header] of response.headers) {
    const value = headerOf(res, name);
    if (header.required) expect(value, `${name} is required: ${where}`).toBeDefined();
    if (value !== undefined) {
      expect(schemaErrors(header.schema, fromText(header.schema, value), name), where).toEqual([]);
    }
  }
  expectRequestId(req, res);
  if (req.method === 'HEAD') {
    expect(res.text).toBe('');
    return;
  }
  if (response.content.size === 0) {
    expect(res.text, where).toBe('');
    return;
  }
  const mediaType = (headerOf(res, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  const schema = response.content.get(mediaType ?? '');
  expect(schema, `media type ${mediaType} is not documented: ${where}`).toBeDefined();
  const body = JSON.parse(res.text) as unknown;
  expect(schemaErrors(schema ?? false, body), where).toEqual([]);
  if (res.status >= 400) {
    // Every error is a problem with one of the codes documented for its status.
    const problem = body as ProblemBody;
    expect(documentedCodes(schema), where).toContain(problem.code);
    expect(problem.status, where).toBe(res.status);
    expect(problem.requestId, where).toBe(headerOf(res, 'X-Request-Id'));
  }
}

/** Checks 1 to 3 for an answer of `operation`: below 500, documented, and as documented. */
function expectDocumented(operation: SpecOperation, req: WireRequest, res: WireResponse): void {
  expect(res.status, show(req, res)).toBeLessThan(500);
  const response = operation.responses.get(String(res.status));
  expect(
    response,
    `${res.status} is not documented for ${operation.id}: ${show(req, res)}`,
  ).toBeDefined();
  if (response !== undefined) expectMatches(response, req, res);
}

function expectProblem(res: WireResponse, req: WireRequest, status: number, code: string): void {
  expect(res.status, show(req, res)).toBe(status);
  if (req.method !== 'HEAD') expect(bodyOf(res).code, show(req, res)).toBe(code);
}

// ---------------------------------------------------------------------------------------------
// Arbitraries, from the parameter schemas
// ---------------------------------------------------------------------------------------------

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
const freeTextArb = (location: Location) =>
  location === 'header'
    ? headerTextArb
    : fc.string({ unit: 'grapheme', minLength: location === 'path' ? 1 : 0, maxLength: 30 });

/** Text that is valid for `p` by its schema alone. */
function schemaTextArb(p: SpecParameter): fc.Arbitrary<string> {
  const { schema } = p;
  let arb: fc.Arbitrary<string>;
  if (schema.enum !== undefined) arb = fc.constantFrom(...schema.enum.map(String));
  else if (schema.type === 'boolean') arb = fc.constantFrom('true', 'false');
  else if (schema.type === 'integer') {
    arb = fc
      .integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 })
      .map(String);
  } else if (schema.type === 'string' && schema.pattern !== undefined) {
    const matching = fc.oneof(
      fc.stringMatching(regexpOf(schema.pattern)),
      fc.stringMatching(regexpOf(schema.pattern), { size: 'large' }),
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
  return arb.filter((text) => isValidText(p, text));
}

/** A code point beyond ASCII, not a surrogate. */
const nonAsciiArb = fc
  .oneof(fc.integer({ min: 0x80, max: 0x7ff }), fc.integer({ min: 0x800, max: 0x10ffff }))
  .filter((c) => c < 0xd800 || c > 0xdfff)
  .map((c) => String.fromCodePoint(c));

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

/** Any letter case of `text`. */
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
 * A valid value of `p`: mostly an identifier of the world's records (a path parameter takes those
 * of the collection its path names, `/employees/{…}`; a GUID header those of the restaurants,
 * the record owners), otherwise one generated from the schema.
 */
function validValueArb(op: SpecOperation, p: SpecParameter, world: World): fc.Arbitrary<Value> {
  const fromSchema = schemaTextArb(p).map((text): Value => ({ text }));
  let pool: readonly string[] = [];
  if (p.in === 'path') {
    const segments = op.template.split('/');
    const collection = segments[segments.indexOf(`{${p.name}}`) - 1] ?? '';
    pool = world.identifiers.get(collection) ?? [];
  } else if (p.in === 'header' && !isUnconstrained(p)) {
    pool = world.restaurants.map((r) => r.guid);
  }
  pool = pool.filter((text) => isValidText(p, text));
  const arbs: fc.WeightedArbitrary<Value>[] = [{ weight: 1, arbitrary: fromSchema }];
  if (pool.length > 0) {
    const known = fc.constantFrom(...pool);
    arbs.push(
      { weight: 3, arbitrary: known.map((text): Value => ({ text })) },
      {
        weight: 1,
        arbitrary: known
          .chain(anyCaseArb)
          .filter((text) => isValidText(p, text))
          .map((text): Value => ({ text })),
      },
    );
  }
  if (p.in === 'path' && isUnconstrained(p)) {
    arbs.push({ weight: 1, arbitrary: badEncodingArb.map((text): Value => ({ text, raw: true })) });
  }
  return fc.oneof(...arbs);
}

/** A value that `p`'s schema refuses (near misses of valid ones, and any text), or `undefined`. */
function invalidTextArb(p: SpecParameter): fc.Arbitrary<string> | undefined {
  if (isUnconstrained(p)) return undefined;
  const nearMiss = fc
    .tuple(
      schemaTextArb(p),
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
        !isValidText(p, text) &&
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
  readonly authorization: string | undefined;
  readonly grant: Grant;
  readonly contentType: string | undefined;
  readonly body: string | undefined;
  /** Which letters of header names to send in upper case (names are case-insensitive). */
  readonly nameCase: readonly boolean[];
  /** Which characters of path and query values to percent-encode though they need not be. */
  readonly overEncode: readonly boolean[] | undefined;
}

const withCase = (name: string, upper: readonly boolean[]) =>
  [...name].map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase())).join('');

function toWire(draft: Draft): WireRequest {
  const { operation } = draft;
  const sentValue = (p: SpecParameter) => draft.values.get(p);
  const path = operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const p = operation.parameters.find((q) => q.in === 'path' && q.name === name);
    const value = p === undefined ? undefined : sentValue(p);
    if (value === undefined) throw new Error(`no value for path parameter ${name}`);
    return value.raw ? value.text : percentEncode(value.text, draft.overEncode);
  });
  const query = [
    ...operation.parameters.flatMap((p) => {
      const value = p.in === 'query' ? sentValue(p) : undefined;
      return value === undefined ? [] : [[p.name, value.text] as const];
    }),
    ...draft.extraQuery,
  ]
    .map(([name, text]) => `${encodeURIComponent(name)}=${percentEncode(text, draft.overEncode)}`)
    .join('&');
  const headers: Record<string, string> = {};
  for (const p of operation.parameters) {
    const value = p.in === 'header' ? sentValue(p) : undefined;
    if (value !== undefined) headers[withCase(p.name, draft.nameCase)] = value.text;
  }
  if (draft.authorization !== undefined) headers.Authorization = draft.authorization;
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

/** A draft as the request it becomes. */
function showDraft(draft: Draft): string {
  const req = toWire(draft);
  const body = req.body === undefined ? '' : ` ${JSON.stringify(req.body.slice(0, 100))}`;
  return `${req.method} ${req.path} ${JSON.stringify(req.headers)}${body}`;
}

const grantArb = (world: World): fc.Arbitrary<Grant> =>
  fc.record({
    scopes: fc.oneof(
      { weight: 4, arbitrary: fc.constant(ALL_SCOPES) },
      { weight: 1, arbitrary: fc.subarray(ALL_SCOPES) },
    ),
    restaurants: fc.oneof(
      { weight: 3, arbitrary: fc.constant<'*'>('*') },
      { weight: 2, arbitrary: fc.subarray(world.restaurants.map((r) => r.guid)) },
    ),
  });

/** A JSON body that `op`'s request body schema accepts, or none (the body is optional). */
const jsonTextArb = (op: SpecOperation) =>
  fc.option(
    fc
      .oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 }))
      .filter((value) => schemaErrors(op.requestSchema, value).length === 0)
      .map((value) => JSON.stringify(value)),
    { nil: undefined },
  );

/** The request media type of `op` as a client may write it (case, a UTF-8 charset). */
const mediaTypeArb = (op: SpecOperation) =>
  op.requestMediaTypes === undefined || op.requestMediaTypes.length === 0
    ? fc.constant(undefined)
    : fc
        .constantFrom(...op.requestMediaTypes)
        .chain((type) => fc.constantFrom(type, type.toUpperCase(), `${type}; charset=utf-8`));

interface DraftOptions {
  readonly grant: fc.Arbitrary<Grant>;
}

/** A request of `op` that its spec finds valid, authorized by a grant from `options`. */
function validDraftArb(
  op: SpecOperation,
  world: World,
  options: DraftOptions,
): fc.Arbitrary<Draft> {
  const entries = op.parameters.map((p) => {
    const value = validValueArb(op, p, world);
    return (p.required ? value : fc.option(value, { nil: undefined })).map((v) => [p, v] as const);
  });
  return fc
    .record({
      entries: fc.tuple(...entries),
      grant: options.grant,
      scheme: fc.constantFrom('Bearer ', 'bearer ', 'BEARER ', 'Bearer  '),
      contentType: mediaTypeArb(op),
      body: op.requestMediaTypes === undefined ? fc.constant(undefined) : jsonTextArb(op),
      nameCase: fc.array(fc.boolean(), { maxLength: 40 }),
      overEncode: fc.option(fc.array(fc.boolean(), { maxLength: 40 }), { nil: undefined }),
      head: fc.boolean(),
    })
    .map(
      ({ entries: pairs, grant, scheme, contentType, body, nameCase, overEncode, head }): Draft =>
        printable<Draft>(
          {
            operation: op,
            // HEAD is GET without the body (RFC 9110), wherever GET is.
            method: op.method === 'GET' && head ? 'HEAD' : op.method,
            values: new Map(
              pairs.flatMap(([p, v]) =>
                v === undefined ? [] : [[p, v] as [SpecParameter, Value]],
              ),
            ),
            extraQuery: [],
            authorization: `${scheme}${signToken(claimsOf(grant))}`,
            grant,
            contentType,
            body,
            nameCase,
            overEncode,
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

const ERROR_LOCATION: Readonly<Record<Location, string>> = {
  path: 'params',
  query: 'query',
  header: 'headers',
};
const errorPathOf = (location: Location, name: string) =>
  `/${ERROR_LOCATION[location]}/${location === 'header' ? name.toLowerCase() : name}`;

const setValue = (draft: Draft, p: SpecParameter, value: Value | undefined): Draft => {
  const values = new Map(draft.values);
  if (value === undefined) values.delete(p);
  else values.set(p, value);
  return { ...draft, values };
};

/** The request body limit (the spec's description, "Limits": 16 KiB). */
const BODY_LIMIT_BYTES = 16 * 1024;

/** Every kind of invalid input `op` can be sent, from its parameters and request body. */
function defectArb(op: SpecOperation): fc.Arbitrary<Defect> {
  const arbs: fc.Arbitrary<Defect>[] = [];
  const invalidParameter = (p: SpecParameter, value: Value): Defect => ({
    apply: (draft) => setValue(draft, p, value),
    status: 400,
    code: 'VALIDATION_FAILED',
    errorPath: errorPathOf(p.in, p.name),
  });
  for (const p of op.parameters) {
    const invalid = invalidTextArb(p);
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

/** A missing or bad bearer token, in every way a client can get one wrong. */
const badAuthorizationArb: fc.Arbitrary<string | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom(
    '',
    'Bearer',
    'Bearer ',
    'Basic d29ya2ZvcmNlOmtpdA==',
    'Token abc.def.ghi',
    'Bearer a b',
    'Bearer not.a.jwt',
  ),
  fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,200}=*$/).map((token) => `Bearer ${token}`),
  fc.string({ unit: fc.constantFrom(...HEADER_CHARS), maxLength: 80 }),
  fc
    .constant(null)
    .map(
      () =>
        `Bearer ${signToken(claimsOf(FULL_GRANT), { secret: 'not-the-secret-0123456789abcdef' })}`,
    ),
  fc
    .constant(null)
    .map(() => `Bearer ${signToken({ ...claimsOf(FULL_GRANT), exp: nowSeconds() - 3600 })}`),
  fc
    .constant(null)
    .map(() => `Bearer ${signToken({ ...claimsOf(FULL_GRANT), nbf: nowSeconds() + 3600 })}`),
  fc.constant(null).map(() => `Bearer ${signToken(claimsOf(FULL_GRANT), { alg: 'none' })}`),
  fc.constant(null).map(() => `Bearer ${signToken(claimsOf(FULL_GRANT), { alg: 'HS512' })}`),
  fc.constant(null).map(() => {
    // A signed token whose payload was swapped afterwards: the signature no longer matches.
    const [header, , signature] = signToken({ ...claimsOf(FULL_GRANT), scope: '' }).split('.');
    const swapped = Buffer.from(JSON.stringify(claimsOf(FULL_GRANT))).toString('base64url');
    return `Bearer ${header}.${swapped}.${signature}`;
  }),
);

/** Whether a grant lets a request of `op` act for the context restaurant `context`. */
function grantAllows(grant: Grant, op: SpecOperation, context: string | undefined): boolean {
  if (!grant.scopes.includes(op.scope)) return false;
  if (grant.restaurants === '*') return true;
  return context !== undefined && grant.restaurants.includes(context.toLowerCase());
}

// ---------------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------------

const RUNS = {
  valid: 350,
  invalid: 350,
  badToken: 200,
  missingHeader: 100,
  defaults: 100,
  wrongMethod: 250,
  unknownPath: 200,
  rateLimit: 25,
  sequences: 150,
};
const TIMEOUT_MS = 60_000;
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

let app: RunningApp;

beforeAll(async () => {
  app = await startApp(false);
});

afterAll(async () => {
  await app.close();
  agent.destroy();
});

/** Sends a request that must change nothing, and checks that it did not. */
async function sendUnchanged(req: WireRequest, target: RunningApp = app): Promise<WireResponse> {
  const before = await stateOf(target.store, target.world.seed);
  const res = await send(target.port, req);
  expect(
    await stateOf(target.store, target.world.seed),
    `state changed: ${show(req, res)}`,
  ).toEqual(before);
  return res;
}

/** The restaurant context header of `op`: its header that carries an identifier. */
const contextHeaderOf = (op: SpecOperation) =>
  op.parameters.find((p) => p.in === 'header' && !isUnconstrained(p));

const contextOf = (draft: Draft): string | undefined => {
  const header = contextHeaderOf(draft.operation);
  const value = header === undefined ? undefined : draft.values.get(header);
  return value === undefined ? undefined : onWire(value.text);
};

describe('the spec', () => {
  it('has operations, each with parameters and documented responses to generate from', () => {
    expect(OPERATIONS.length).toBeGreaterThan(0);
    for (const op of OPERATIONS) {
      expect(op.responses.size, op.id).toBeGreaterThan(0);
      expect(ALL_SCOPES, op.id).toContain(op.scope);
      for (const p of op.parameters) expect(() => schemaTextArb(p), p.name).not.toThrow();
    }
  });
});

for (const operation of OPERATIONS) {
  describe(`${operation.id} (${operation.method} ${operation.template})`, () => {
    it(
      'answers generated valid requests, to existing and missing records, with a documented status',
      async () => {
        const statuses = new Set<number>();
        await fc.assert(
          fc.asyncProperty(
            validDraftArb(operation, app.world, { grant: grantArb(app.world) }),
            async (draft) => {
              app.reset();
              const req = toWire(draft);
              const res = await send(app.port, req);
              statuses.add(res.status);
              expectDocumented(operation, req, res);
              const { grant } = draft;
              if (!grant.scopes.includes(operation.scope)) {
                expectProblem(res, req, 403, 'INSUFFICIENT_SCOPE');
              } else if (!grantAllows(grant, operation, contextOf(draft))) {
                expectProblem(res, req, 403, 'RESTAURANT_NOT_PERMITTED');
              } else if (req.method !== 'HEAD' && res.status >= 400) {
                expect(
                  REFUSAL_CODES,
                  `a valid request was refused: ${show(req, res)}`,
                ).not.toContain(bodyOf(res).code);
              }
            },
          ),
          { numRuns: RUNS.valid },
        );
        // The generator reaches records that exist in the context and records that do not.
        expect([...statuses]).toContain(200);
        expect([...statuses]).toContain(404);
      },
      TIMEOUT_MS,
    );

    it(
      'refuses invalid input with the documented 4xx, and changes nothing',
      async () => {
        await fc.assert(
          fc.asyncProperty(
            validDraftArb(operation, app.world, { grant: fc.constant(FULL_GRANT) }),
            defectArb(operation),
            async (valid, defect) => {
              const req = toWire(defect.apply(valid));
              const res = await sendUnchanged(req);
              expectDocumented(operation, req, res);
              expectProblem(res, req, defect.status, defect.code);
              if (defect.errorPath !== undefined && req.method !== 'HEAD') {
                const paths = (bodyOf(res).errors ?? []).map((e) => String(e.path).toLowerCase());
                expect(paths, show(req, res)).toContain(defect.errorPath.toLowerCase());
              }
            },
          ),
          { numRuns: RUNS.invalid },
        );
      },
      TIMEOUT_MS,
    );

    it(
      'answers 401 invalid_token to a missing or bad token, whatever else the request carries',
      async () => {
        await fc.assert(
          fc.asyncProperty(
            validDraftArb(operation, app.world, { grant: fc.constant(FULL_GRANT) }),
            fc.option(defectArb(operation), { nil: undefined }),
            badAuthorizationArb,
            async (valid, defect, authorization) => {
              const draft = { ...(defect?.apply(valid) ?? valid), authorization };
              const req = toWire(draft);
              const res = await sendUnchanged(req);
              expectDocumented(operation, req, res);
              expectProblem(res, req, 401, 'INVALID_TOKEN');
              expect(headerOf(res, 'WWW-Authenticate'), show(req, res)).toContain(
                'error="invalid_token"',
              );
            },
          ),
          { numRuns: RUNS.badToken },
        );
      },
      TIMEOUT_MS,
    );

    const requiredHeaders = operation.parameters.filter((p) => p.in === 'header' && p.required);
    if (requiredHeaders.length > 0) {
      it(
        'answers 400 VALIDATION_FAILED to a missing required header when the token is valid',
        async () => {
          // Any valid token that carries the operation's scope, whatever restaurants it names.
          const grant = fc.record({
            scopes: fc.subarray(ALL_SCOPES).map((s) => [...new Set([...s, operation.scope])]),
            restaurants: fc.oneof(
              fc.constant<'*'>('*'),
              fc.subarray(app.world.restaurants.map((r) => r.guid)),
            ),
          });
          await fc.assert(
            fc.asyncProperty(
              validDraftArb(operation, app.world, { grant }),
              fc.constantFrom(...requiredHeaders),
              async (valid, missing) => {
                const req = toWire(setValue(valid, missing, undefined));
                const res = await send(app.port, req);
                expectDocumented(operation, req, res);
                expectProblem(res, req, 400, 'VALIDATION_FAILED');
                if (req.method !== 'HEAD') {
                  const paths = (bodyOf(res).errors ?? []).map((e) => e.path);
                  expect(paths, show(req, res)).toContain(errorPathOf('header', missing.name));
                }
              },
            ),
            { numRuns: RUNS.missingHeader },
          );
        },
        TIMEOUT_MS,
      );
    }

    const defaulted = operation.parameters.filter(
      (p) => !p.required && p.schema.default !== undefined,
    );
    if (defaulted.length > 0 && ['GET', 'HEAD'].includes(operation.method)) {
      it(
        'answers an optional parameter sent with its default as it answers it left out',
        async () => {
          await fc.assert(
            fc.asyncProperty(
              validDraftArb(operation, app.world, { grant: fc.constant(FULL_GRANT) }),
              fc.constantFrom(...defaulted),
              async (valid, p) => {
                const plain = { ...valid, method: operation.method };
                const left = toWire(setValue(plain, p, undefined));
                const given = toWire(setValue(plain, p, { text: String(p.schema.default) }));
                const [a, b] = [await send(app.port, left), await send(app.port, given)];
                expectDocumented(operation, left, a);
                expectDocumented(operation, given, b);
                expect(b.status, show(given, b)).toBe(a.status);
                const { requestId: _a, instance: _i, ...leftBody } = JSON.parse(a.text);
                const { requestId: _b, instance: _j, ...givenBody } = JSON.parse(b.text);
                expect(givenBody).toEqual(leftBody);
              },
            ),
            { numRuns: RUNS.defaults },
          );
        },
        TIMEOUT_MS,
      );
    }
  });
}

describe('every operation, in any order', () => {
  it(
    'answers sequences of valid requests as documented; a refused one changes nothing, a success at most one event',
    async () => {
      const anyDraft = fc.oneof(
        ...OPERATIONS.map((op) => validDraftArb(op, app.world, { grant: grantArb(app.world) })),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(anyDraft, { minLength: 1, maxLength: 8 }), async (drafts) => {
          app.reset();
          for (const draft of drafts) {
            const req = toWire(draft);
            const before = await stateOf(app.store, app.world.seed);
            const res = await send(app.port, req);
            expectDocumented(draft.operation, req, res);
            const after = await stateOf(app.store, app.world.seed);
            if (res.status >= 400) {
              expect(after, `state changed: ${show(req, res)}`).toEqual(before);
            } else {
              expect(
                after.events.length - before.events.length,
                show(req, res),
              ).toBeLessThanOrEqual(1);
            }
          }
        }),
        { numRuns: RUNS.sequences },
      );
    },
    TIMEOUT_MS,
  );
});

describe('every path of the spec', () => {
  const paths = [...PATHS.entries()];
  /** The methods a path answers: its operations', and HEAD wherever GET is (RFC 9110). */
  const allowedOn = (ops: readonly SpecOperation[]) => {
    const methods = ops.map((op) => op.method);
    return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
  };

  it(
    'answers 405 with Allow to a method it does not support, and changes nothing',
    async () => {
      const wrong = fc.constantFrom(...paths).chain(([template, ops]) =>
        fc.tuple(
          fc.constant(template),
          fc.constant(ops),
          fc.constantFrom(
            ...OPENAPI_METHODS.map((m) => m.toUpperCase()).filter(
              (m) => !allowedOn(ops).includes(m),
            ),
          ),
          // The path's parameters, valid or not: routing comes first.
          fc.array(
            fc.oneof(
              fc.stringMatching(/^[A-Za-z0-9:_-]{1,40}$/),
              fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).map(encodeURIComponent),
            ),
            { minLength: 4, maxLength: 4 },
          ),
          fc.option(badAuthorizationArb, { nil: undefined }),
          fc.boolean(),
        ),
      );
      await fc.assert(
        fc.asyncProperty(wrong, async ([template, ops, method, segments, badAuth, useBad]) => {
          let i = 0;
          const path = template.replace(/\{[^}]+\}/g, () => segments[i++] ?? 'x');
          const authorization = useBad ? badAuth : bearer(FULL_GRANT);
          const req: WireRequest = {
            method,
            path,
            headers: authorization === undefined ? {} : { Authorization: authorization },
          };
          const res = await sendUnchanged(req);
          expect(res.status, show(req, res)).toBe(405);
          const allow = (headerOf(res, 'Allow') ?? '').split(',').map((m) => m.trim());
          expect(new Set(allow), show(req, res)).toEqual(new Set(allowedOn(ops)));
          for (const op of ops) expectDocumented(op, req, res);
          if (method !== 'HEAD') expect(bodyOf(res).code).toBe('METHOD_NOT_ALLOWED');
        }),
        { numRuns: RUNS.wrongMethod },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'answers 404 NOT_FOUND to a path under the API that names no operation, and changes nothing',
    async () => {
      const segment = fc.oneof(
        fc.constantFrom('', 'x', '..', '.', ...LITERAL_SEGMENTS),
        fc.stringMatching(/^[A-Za-z0-9._~:-]{1,12}$/),
      );
      const nearMiss = fc
        .tuple(fc.constantFrom(...PATHS.keys()), fc.integer({ min: 0, max: 4 }), segment)
        .map(([template, edit, extra]) => {
          const concrete = template.replace(/\{[^}]+\}/g, 'a1b2');
          const parts = concrete.split('/');
          if (edit === 0) return `${concrete}/`;
          if (edit === 1) return `${concrete}/${extra}`;
          if (edit === 2) return parts.slice(0, -1).join('/');
          // A literal segment after the prefix, in another case or replaced.
          const at = 3 + (parts.length - 3 > 0 ? edit % (parts.length - 3) : 0);
          const literal = parts[at] ?? '';
          parts[at] = edit === 3 ? literal.toUpperCase() : `${literal}${extra}s`;
          return parts.join('/');
        });
      const anyUnder = fc
        .tuple(fc.constantFrom(...PREFIXES), fc.array(segment, { maxLength: 4 }))
        .map(([prefix, rest]) => [prefix, ...rest].join('/'));
      await fc.assert(
        fc.asyncProperty(
          fc
            .oneof(nearMiss, anyUnder)
            .filter((path) => !TEMPLATE_PATTERNS.some((p) => p.test(path))),
          fc.constantFrom(...OPENAPI_METHODS.map((m) => m.toUpperCase())),
          fc.option(badAuthorizationArb, { nil: undefined }),
          async (path, method, authorization) => {
            const req: WireRequest = {
              method,
              path,
              headers: authorization === undefined ? {} : { Authorization: authorization },
            };
            const res = await sendUnchanged(req);
            expect(res.status, show(req, res)).toBe(404);
            expectMatches(NOT_FOUND_RESPONSE, req, res);
          },
        ),
        { numRuns: RUNS.unknownPath },
      );
    },
    TIMEOUT_MS,
  );
});

describe('rate limits', () => {
  const LIMIT = 3;
  let limited: RunningApp;

  beforeAll(async () => {
    limited = await startApp({ perSecond: 1_000, per15Minutes: LIMIT });
  });
  afterAll(async () => {
    await limited.close();
  });

  it(
    'answer 429 as documented once a context has spent its quota, changing nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uuid(),
          fc.oneof(
            ...OPERATIONS.map((op) =>
              fc.array(validDraftArb(op, limited.world, { grant: fc.constant(FULL_GRANT) }), {
                minLength: LIMIT + 2,
                maxLength: LIMIT + 2,
              }),
            ),
          ),
          async (context, drafts) => {
            for (const [i, draft] of drafts.entries()) {
              // A fresh context per run: the limit is counted per restaurant context.
              const header = contextHeaderOf(draft.operation);
              const req = toWire(header ? setValue(draft, header, { text: context }) : draft);
              const res =
                i < LIMIT ? await send(limited.port, req) : await sendUnchanged(req, limited);
              expectDocumented(draft.operation, req, res);
              if (i < LIMIT) expect(res.status, show(req, res)).not.toBe(429);
              else expectProblem(res, req, 429, 'RATE_LIMITED');
            }
          },
        ),
        { numRuns: RUNS.rateLimit },
      );
    },
    TIMEOUT_MS,
  );
});

describe('the whole run', () => {
  it('sent at least 2000 generated requests', () => {
    const statuses = [...statusesSeen]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    console.info(`spec-driven properties: ${requestsSent} requests sent (${statuses})`);
    expect(requestsSent).toBeGreaterThanOrEqual(2000);
  });
});
