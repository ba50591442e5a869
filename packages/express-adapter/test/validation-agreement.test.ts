// The router validates a request with ajv, compiled at start-up from the spec's own schemas
// (@workforce-kit/http). This property holds its decision equal to that of a well-known validator,
// express-openapi-validator's public middleware, on generated requests: every operation; path
// parameters valid, invalid, percent-encoded (in either hex case, or every character) and
// malformed; the context header present, missing, padded, repeated or malformed; query strings with
// includeArchived valid, invalid, empty, repeated, and unknown parameters; Content-Types and bodies
// for the PUT. Where both reject, every input the library names the router names too (the library
// stops at the first part of a request that fails; the router lists every bad input).
//
// Each request goes over HTTP to two apps:
// - the router (`createRouter`) with an auth that accepts every token, a store that finds nothing
//   and no rate limit: 400 VALIDATION_FAILED is "rejected", with the paths of its `errors`; the
//   404 of a record that is not found is "accepted";
// - the library: `OpenApiValidator.middleware` on its own express app, after express.json (the
//   validator checks the parsed body; the router parses JSON bodies too), with a final handler
//   answering 200 ("accepted") and an error handler answering the error's status and paths.
// Both must take the same decision, and reject with the same set of input paths.
//
// The router answers some requests before it validates. Each is generated and checked explicitly:
// - Authentication, scope, restaurant permission (401, 403) and rate limits (429): not generated
//   here (the auth accepts everything, no rate limit), so that validation decides.
// - 413: bodies stay far below the 16 KiB limit; the library app's parser has its own limit.
// - 415: a PUT whose Content-Type is missing or not JSON in UTF-8 is 415 (a rule of the contract
//   the spec cannot express); the library has no such rule. Checked: the router answers 415.
// - A PUT body that is not JSON: the router's parser answers 400 MALFORMED_JSON, the library app's
//   parser rejects it too. Checked: both reject, before validation.
// - Malformed percent-encoding of a constrained parameter (employeeId, shiftId): the router
//   answers 400 naming /params/<name>; the library answers 400 naming the request path. Checked:
//   both reject, each with that path.
// - Malformed percent-encoding of restaurantGUID, which the spec leaves an unconstrained string:
//   the router passes it on raw (and it is then not found); the library rejects the URI. Checked:
//   the library rejects it naming the request path, and the router decides as the library does on
//   the same request with a well-formed restaurantGUID.
// - Operations without a body are sent none (the router never reads one; the library app would).
// - Routing is not compared: every request goes to an operation's path, in its case, with no
//   trailing slash. (The library also matches `/LABOR/v1/…` and `…/{shiftId}/`; the router does not,
//   by design: its routes are case-sensitive and have no trailing slash.)
//
// FINDINGS: before it validates, the library rewrites the query (its RequestParameterMutator):
// it rewrites bracketed parameter names and checks raw values for reserved characters; the router
// validates the query as sent. Where that makes the two disagree, the case is left out of the
// comparison below, and named there:
// 1. Decision. A query parameter whose name (decoded) starts with `[`, such as `?[a]=1`, `?[)=x` or
//    `?%5Bx%5D=1`, or whose part before `[` qs decodes once more (`?a%2525[x]=1`), is dropped by
//    the library's bracket-notation handler (it deletes every bracketed name and re-adds only the
//    part before the first `[` that qs.parse gives back), which then accepts the request. The
//    router rejects it: 400 VALIDATION_FAILED, `Unknown query parameter`, as the spec says of an
//    unknown parameter (`allowUnknownQueryParameters: false`). Checked: the router rejects every
//    query with a bracketed name, naming one query parameter.
// 2. Paths. For other bracketed names both reject, but the library names the part before `[`
//    (`?foo[bar]=1`: `/query/foo`; `?includeArchived[]=true`: `/query/includeArchived`, as a value
//    that is not a boolean), and moves integer-like names first; the router names the parameter
//    as sent (`/query/foo[bar]`). Left out with finding 1.
// 3. Paths. The library refuses an unencoded reserved character (`:/?#[]@!$&'()*+,;=`) in the raw
//    value of `includeArchived` before it checks for unknown or empty parameters and runs the
//    schema; the router does not make that check. Such a value is never `true` or `false`, so the
//    decision is the same (compared), but with another bad input the paths differ:
//    `GET …?foo=1&includeArchived=t:x` is `/query/includeArchived` for the library and
//    `/query/foo` for the router.
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseQuery } from 'node:querystring';
import { storageUnavailable } from '@workforce-kit/core';
import { externalIdArb, guidInputArb, malformedShiftIdArb } from '@workforce-kit/core/testing';
import { ALL_SCOPES } from '@workforce-kit/http/testing';
import { openapiDocument } from '@workforce-kit/types';
import express, { type NextFunction, type Request, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import fc from 'fast-check';
import { errAsync, okAsync } from 'neverthrow';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccessTokenVerifier, type ApiStore, createRouter } from '../src/index.js';

const RUNS = 5000;

type OperationId = 'unarchiveEmployee' | 'archiveEmployee' | 'deleteShift' | 'getRestaurant';

const OPERATIONS: {
  readonly [id in OperationId]: {
    readonly method: 'PUT' | 'DELETE' | 'GET';
    readonly param: 'employeeId' | 'shiftId' | 'restaurantGUID';
    readonly path: (segment: string) => string;
  };
} = {
  unarchiveEmployee: {
    method: 'PUT',
    param: 'employeeId',
    path: (s) => `/labor/v1/employees/${s}/unarchive`,
  },
  archiveEmployee: {
    method: 'DELETE',
    param: 'employeeId',
    path: (s) => `/labor/v1/employees/${s}`,
  },
  deleteShift: { method: 'DELETE', param: 'shiftId', path: (s) => `/labor/v1/shifts/${s}` },
  getRestaurant: {
    method: 'GET',
    param: 'restaurantGUID',
    path: (s) => `/restaurants/v1/restaurants/${s}`,
  },
};

/** The codes with which the router answers a request that passed validation (the store finds nothing). */
const NOT_FOUND = new Set(['EMPLOYEE_NOT_FOUND', 'SHIFT_NOT_FOUND', 'RESTAURANT_NOT_FOUND']);

// ---------------------------------------------------------------------------------------------
// Generated requests

/** The UTF-8 bytes of one code point; an unpaired surrogate as the bytes a decoder refuses. */
function utf8(codePoint: number): number[] {
  if (codePoint < 0x80) return [codePoint];
  if (codePoint < 0x800) return [0xc0 | (codePoint >> 6), 0x80 | (codePoint & 0x3f)];
  if (codePoint < 0x10000) {
    return [0xe0 | (codePoint >> 12), 0x80 | ((codePoint >> 6) & 0x3f), 0x80 | (codePoint & 0x3f)];
  }
  return [
    0xf0 | (codePoint >> 18),
    0x80 | ((codePoint >> 12) & 0x3f),
    0x80 | ((codePoint >> 6) & 0x3f),
    0x80 | (codePoint & 0x3f),
  ];
}

/** Characters a path segment may carry unencoded (RFC 3986 pchar). */
const PCHAR = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/;

type Encoding = 'minimal' | 'minimal-lower-hex' | 'every-character';

/** A decoded value as a client may put it in a path segment, as a list of tokens. */
function encodeSegment(value: string, encoding: Encoding): string[] {
  return [...value].map((char) => {
    if (encoding !== 'every-character' && PCHAR.test(char)) return char;
    const hex = utf8(char.codePointAt(0) ?? 0).map(
      (byte) => `%${byte.toString(16).padStart(2, '0')}`,
    );
    return (encoding === 'minimal-lower-hex' ? hex : hex.map((h) => h.toUpperCase())).join('');
  });
}

const MALFORMED_ESCAPES = ['%', '%%', '%G1', '%4', '%C3', '%E2%82', '%C0%AF', '%ED%A0%80', '%FF'];

/** A raw path segment: an identifier, a near miss or any string, encoded, maybe malformed. */
const segmentArb: fc.Arbitrary<string> = fc
  .record({
    value: fc.oneof(
      { weight: 4, arbitrary: guidInputArb },
      { weight: 3, arbitrary: externalIdArb },
      { weight: 3, arbitrary: malformedShiftIdArb },
      { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
      { weight: 1, arbitrary: guidInputArb.map((g) => `${g} `) },
      { weight: 1, arbitrary: guidInputArb.map((g) => g.replaceAll('-', '')) },
    ),
    encoding: fc.constantFrom<Encoding>('minimal', 'minimal-lower-hex', 'every-character'),
    malformed: fc.oneof(
      { weight: 6, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(...MALFORMED_ESCAPES)) },
    ),
  })
  .map(({ value, encoding, malformed }) => {
    const tokens = encodeSegment(value, encoding);
    if (malformed !== undefined) tokens.splice(malformed[0] % (tokens.length + 1), 0, malformed[1]);
    return tokens.join('');
  })
  .filter((segment) => segment.length > 0);

/** Printable ASCII without space and `#` (which a request target cannot carry). */
const queryCharArb = fc.constantFrom(
  ...[...Array(0x7f - 0x21).keys()]
    .map((i) => String.fromCharCode(0x21 + i))
    .filter((c) => c !== '#'),
);
const rawQueryTextArb = fc.string({ unit: queryCharArb, minLength: 0, maxLength: 8 });

const includeArchivedValueArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('true', 'false') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'TRUE',
      'True',
      'FALSE',
      '1',
      '0',
      'yes',
      'null',
      '%74rue',
      'fals%65',
      'tr%20ue',
      '+true',
      'true+',
      'true%00',
      '%22true%22',
      'tr,ue',
      'true,false',
      '[]',
      '%5Btrue%5D',
      '',
    ),
  },
  { weight: 1, arbitrary: rawQueryTextArb },
);

/** One `name=value` pair of a query string, raw. */
const queryPairArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: includeArchivedValueArb.map((v) => `includeArchived=${v}`) },
  { weight: 1, arbitrary: fc.constant('includeArchived') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'foo=1',
      'includearchived=true',
      'IncludeArchived=true',
      'include_archived=true',
      '%69ncludeArchived=true',
      'includeArchived%3Dtrue',
      '=x',
      '=',
      '',
      'x',
      // Bracketed names (FINDINGS 1 and 2).
      'includeArchived[]=true',
      'includeArchived[x]=1',
      'foo[bar]=1',
      '[a]=1',
      '[)=x',
      '%5Bx%5D=1',
      'a%2525[x]=1',
    ),
  },
  { weight: 1, arbitrary: fc.tuple(rawQueryTextArb, rawQueryTextArb).map(([k, v]) => `${k}=${v}`) },
);

const queryArb: fc.Arbitrary<string | undefined> = fc.option(
  fc.array(queryPairArb, { maxLength: 3 }).map((pairs) => pairs.join('&')),
  { freq: 2, nil: undefined },
);

const latin1Arb = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c < 0x7f || c > 0x9f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

/** The value(s) of the restaurant context header, or none. */
const contextArb: fc.Arbitrary<string | readonly string[] | undefined> = fc.oneof(
  { weight: 6, arbitrary: guidInputArb },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: guidInputArb.map((g) => ` ${g}\t`) },
  {
    weight: 2,
    arbitrary: fc.oneof(
      guidInputArb.map((g) => `${g.slice(0, -1)}g`),
      guidInputArb.map((g) => g.slice(1)),
      guidInputArb.map((g) => `${g}0`),
      guidInputArb.map((g) => `urn:uuid:${g}`),
      guidInputArb.map((g) => `{${g}}`),
      guidInputArb.map((g) => g.replaceAll('-', '')),
      fc.constant(''),
      latin1Arb,
    ),
  },
  { weight: 1, arbitrary: fc.tuple(guidInputArb, guidInputArb) },
);

const JSON_MEDIA_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'Application/JSON',
  'application/json;charset=UTF-8',
];
const OTHER_MEDIA_TYPES = [
  'text/plain',
  'application/json; charset=latin1',
  'application/x-www-form-urlencoded',
  'application/merge-patch+json',
  '',
];
const BODIES = ['', '{}', '{"note":"ignored"}', '[]', 'null', '"text"', '42', 'true', ' {} '];
const NOT_JSON_BODIES = ['{', 'nope', '{"a":}', ' ', "{'a':1}"];

interface WireRequest {
  readonly operation: OperationId;
  readonly segment: string;
  readonly query: string | undefined;
  readonly contextName: string;
  readonly context: string | readonly string[] | undefined;
  readonly requestId: string | undefined;
  readonly contentType: string | undefined;
  readonly body: string | undefined;
}

const wireRequestArb: fc.Arbitrary<WireRequest> = fc
  .record({
    operation: fc.constantFrom<OperationId>(
      'unarchiveEmployee',
      'archiveEmployee',
      'deleteShift',
      'getRestaurant',
    ),
    segment: segmentArb,
    query: queryArb,
    contextName: fc.constantFrom(
      'Platform-Restaurant-External-ID',
      'platform-restaurant-external-id',
      'PLATFORM-RESTAURANT-EXTERNAL-ID',
    ),
    context: contextArb,
    requestId: fc.option(fc.string({ unit: queryCharArb, maxLength: 140 }), { nil: undefined }),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...JSON_MEDIA_TYPES) },
      { weight: 1, arbitrary: fc.constantFrom(...OTHER_MEDIA_TYPES, undefined) },
    ),
    body: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...BODIES) },
      { weight: 1, arbitrary: fc.constantFrom(...NOT_JSON_BODIES) },
    ),
  })
  .map((request) =>
    // Only the PUT has a body and a Content-Type; the others carry a Content-Type at times.
    OPERATIONS[request.operation].method === 'PUT'
      ? request
      : {
          ...request,
          body: undefined,
          contentType: request.contentType === 'text/plain' ? 'text/plain' : undefined,
        },
  );

// ---------------------------------------------------------------------------------------------
// The two apps and how their answers read

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

interface Answer {
  readonly status: number;
  readonly body: { readonly code?: string; readonly type?: string; readonly errors?: unknown[] };
}

function send(port: number, request: WireRequest, segment = request.segment): Promise<Answer> {
  const operation = OPERATIONS[request.operation];
  const headers: Record<string, string | string[]> = { authorization: 'Bearer anything' };
  if (request.context !== undefined) headers[request.contextName] = [request.context].flat();
  if (request.requestId !== undefined) headers['x-request-id'] = request.requestId;
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  if (request.body !== undefined)
    headers['content-length'] = String(Buffer.byteLength(request.body));
  const path = `${operation.path(segment)}${request.query === undefined ? '' : `?${request.query}`}`;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, method: operation.method, path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] });
          } catch {
            reject(new Error(`${operation.method} ${path}: ${res.statusCode} ${text}`));
          }
        });
      },
    );
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** An error path as a JSON pointer: `.params.shiftId` and `/params/shiftId` alike. */
const pointer = (path: string) =>
  path.startsWith('/') ? path : `/${path.replace(/^\./, '').replaceAll('.', '/')}`;

function pathsOf(answer: Answer): string[] {
  const paths = (answer.body.errors ?? []).map((error) =>
    pointer(typeof error === 'string' ? error : String((error as { path?: unknown }).path)),
  );
  return [...new Set(paths)].sort();
}

type Decision =
  | { readonly kind: 'accepted' }
  | { readonly kind: 'rejected'; readonly paths: readonly string[] };

/** The router's decision; any other answer than these two is a failure. */
function routerDecision(answer: Answer): Decision {
  if (answer.status === 400 && answer.body.code === 'VALIDATION_FAILED') {
    return { kind: 'rejected', paths: pathsOf(answer) };
  }
  if (answer.status === 404 && NOT_FOUND.has(answer.body.code ?? '')) return { kind: 'accepted' };
  throw new Error(`the router answered ${answer.status} ${JSON.stringify(answer.body)}`);
}

function libraryDecision(answer: Answer): Decision {
  if (answer.status === 200) return { kind: 'accepted' };
  if (answer.status === 400 && answer.body.type === undefined) {
    return { kind: 'rejected', paths: pathsOf(answer) };
  }
  throw new Error(`the library answered ${answer.status} ${JSON.stringify(answer.body)}`);
}

const isMalformedEncoding = (segment: string) => {
  try {
    decodeURIComponent(segment);
    return false;
  } catch {
    return true;
  }
};

const isJsonText = (body: string) => {
  try {
    JSON.parse(body);
    return true;
  } catch {
    return false;
  }
};

/** The characters the library refuses, unencoded, in the raw value of a query parameter. */
const RESERVED = /[:/?#[\]@!$&'()*+,;=]/;

/** Whether a raw `includeArchived` value carries one, as the library reads the raw query. */
function hasReservedIncludeArchived(query: string | undefined): boolean {
  return (query ?? '').split('&').some((pair) => {
    const [name, value] = pair.split('=');
    return name === 'includeArchived' && value !== undefined && RESERVED.test(value);
  });
}

let routerServer: Server;
let libraryServer: Server;
let routerPort: number;
let libraryPort: number;

async function listen(app: express.Express): Promise<[Server, number]> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [server, (server.address() as AddressInfo).port];
}

beforeAll(async () => {
  const everyone: AccessTokenVerifier = {
    verify: () => okAsync({ scopes: new Set(ALL_SCOPES.split(' ')), restaurants: 'all' }),
  };
  const refused = () => errAsync(storageUnavailable('write', 'this store finds nothing'));
  const nothing: ApiStore = {
    employees: { find: () => okAsync(null), write: refused },
    shifts: { find: () => okAsync(null), write: refused },
    restaurants: { findByGuid: () => okAsync(null) },
  };
  const router = createRouter({
    store: nothing,
    auth: everyone,
    rateLimit: false,
    logger: pino({ level: 'silent' }),
  });
  await router.ready;
  const routerApp = express();
  routerApp.use(router);

  const libraryApp = express();
  libraryApp.use(express.json({ strict: false }));
  libraryApp.use(
    OpenApiValidator.middleware({
      apiSpec: structuredClone(openapiDocument) as unknown as Parameters<
        typeof OpenApiValidator.middleware
      >[0]['apiSpec'],
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
      validateResponses: false,
      validateSecurity: false,
      validateFormats: true,
    }),
  );
  libraryApp.use((_req: Request, res: Response) => {
    res.status(200).json({ accepted: true });
  });
  libraryApp.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const { status, type, errors } = error as {
      status?: number;
      type?: string;
      errors?: { path?: string }[];
    };
    res.status(status ?? 500).json({ type, errors: (errors ?? []).map((e) => e.path) });
  });

  [routerServer, routerPort] = await listen(routerApp);
  [libraryServer, libraryPort] = await listen(libraryApp);
});

afterAll(async () => {
  agent.destroy();
  for (const server of [routerServer, libraryServer]) {
    await new Promise<void>((resolve, reject) =>
      server.close((error) => (error ? reject(error) : resolve())),
    );
  }
});

describe('the router validates as express-openapi-validator does', () => {
  it('takes the decision of the library middleware, naming every input it names', async () => {
    const tally = new Map<string, number>();
    const count = (key: string) => tally.set(key, (tally.get(key) ?? 0) + 1);
    let requests = 0;

    await fc.assert(
      fc.asyncProperty(wireRequestArb, async (request) => {
        const operation = OPERATIONS[request.operation];
        const [router, library] = await Promise.all([
          send(routerPort, request),
          send(libraryPort, request),
        ]);
        requests += 2;
        const label = `${operation.method} ${operation.path(request.segment)}?${request.query ?? ''} ${JSON.stringify(request)}\nrouter: ${router.status} ${JSON.stringify(router.body)}\nlibrary: ${library.status} ${JSON.stringify(library.body)}`;

        if (operation.method === 'PUT' && !JSON_MEDIA_TYPES.includes(request.contentType ?? '')) {
          expect(router.status, label).toBe(415);
          expect(router.body.code, label).toBe('UNSUPPORTED_MEDIA_TYPE');
          count('excluded: 415 of the router');
          return;
        }
        if (request.body !== undefined && request.body !== '' && !isJsonText(request.body)) {
          expect([router.status, router.body.code], label).toEqual([400, 'MALFORMED_JSON']);
          expect([library.status, library.body.type], label).toEqual([400, 'entity.parse.failed']);
          count('both reject a body that is not JSON');
          return;
        }
        let expected: Decision;
        if (isMalformedEncoding(request.segment)) {
          expect(libraryDecision(library), label).toEqual({
            kind: 'rejected',
            paths: [operation.path(request.segment)],
          });
          if (operation.param !== 'restaurantGUID') {
            expect(routerDecision(router), label).toEqual({
              kind: 'rejected',
              paths: [`/params/${operation.param}`],
            });
            count('both reject malformed percent-encoding');
            return;
          }
          expected = libraryDecision(await send(libraryPort, request, 'not-a-guid'));
          requests += 1;
          count('compared with a stand-in: malformed restaurantGUID');
        } else {
          expected = libraryDecision(library);
        }

        const names = Object.keys(parseQuery(request.query ?? ''));
        if (names.some((name) => name.includes('['))) {
          // FINDING 1 and 2 (see the header): not compared. The router rejects every such query,
          // naming the query parameter, as it does any unknown parameter.
          expect(routerDecision(router), label).toEqual({
            kind: 'rejected',
            paths: expect.arrayContaining([expect.stringMatching(/^\/query\/.*\[/)]),
          });
          count('excluded: bracketed query parameter names');
          return;
        }
        if (operation.param === 'restaurantGUID' && hasReservedIncludeArchived(request.query)) {
          // FINDING 3 (see the header): the decisions are compared, not the paths.
          expect(routerDecision(router).kind, label).toBe(expected.kind);
          count('compared, decision only: reserved characters in includeArchived');
          return;
        }
        const decision = routerDecision(router);
        expect(decision.kind, label).toBe(expected.kind);
        if (decision.kind === 'rejected' && expected.kind === 'rejected') {
          expect(decision.paths, label).toEqual(expect.arrayContaining([...expected.paths]));
        }
        count(`compared: ${expected.kind}`);
      }),
      { numRuns: RUNS },
    );

    // Each kind of request was generated, and both decisions came up often.
    expect(tally.get('compared: accepted') ?? 0).toBeGreaterThan(RUNS / 10);
    expect(tally.get('compared: rejected') ?? 0).toBeGreaterThan(RUNS / 10);
    for (const kind of [
      'excluded: 415 of the router',
      'both reject a body that is not JSON',
      'both reject malformed percent-encoding',
      'compared with a stand-in: malformed restaurantGUID',
    ]) {
      expect(tally.get(kind) ?? 0, kind).toBeGreaterThan(0);
    }
    console.info(
      `validation agreement: ${requests} requests; ${[...tally].map(([k, v]) => `${k}: ${v}`).join('; ')}`,
    );
  }, 120_000);
});
