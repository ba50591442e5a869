// Tenant isolation over real HTTP. Restaurant A holds records (employees archived and not, shifts
// with external identifiers, the restaurant itself); restaurant B holds its own, and one shift of
// each shares an external identifier. Generated sequences of requests that may act for B only (in
// B's context with a token for B, for "*" or for B and another restaurant, any subset of scopes;
// or in A's context with a token that does not name A) name A's records by GUID in any letter case,
// by external identifier, or name B's records. No request may return or change A's records:
// - no response mentions one of A's GUIDs, external identifiers or names that the request did not
//   carry itself, and no 2xx body is one of A's records;
// - A's records, read back through the store's repositories, and A's events stay as seeded;
// - every answer is the documented one (a small model of B's records says which): 404 for A's
//   records and restaurant in B's context, 403 RESTAURANT_NOT_PERMITTED for a token for B in A's
//   context, 403 INSUFFICIENT_SCOPE without the scope, and B's own transitions;
// - every answer is the same, byte for byte, as the one the same request gets from a store that
//   holds B's records only: nothing in an answer depends on A.
//
// One app (`startRouterServer`: createRouter with response validation on, HS256 tokens) serves
// every run: it compiles the spec once, and its store delegates to the store of the run (or of
// the request's twin).
import {
  createMemoryStore,
  type Employee,
  type ExternalId,
  type Guid,
  isGuid,
  type MemoryStore,
  type Restaurant,
  SCOPES,
  type Scope,
  type Shift,
} from '@workforce-kit/core';
import {
  aSeed,
  employeeArb,
  externalIdArb,
  guidArb,
  restaurantArb,
  shiftArb,
} from '@workforce-kit/core/testing';
import { createJwtVerifier } from '@workforce-kit/express-adapter';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  delegatingStore,
  type RouterServer,
  signJwt,
  startRouterServer,
} from '../support/router-server.js';

const SECRET = 'tenant-isolation-http-secret-0123456789abcdef';
const RUNS = 300;
const MAX_REQUESTS_PER_RUN = 12;

type OperationId = 'unarchiveEmployee' | 'archiveEmployee' | 'deleteShift' | 'getRestaurant';

const OPERATIONS: {
  readonly [id in OperationId]: {
    readonly method: 'PUT' | 'DELETE' | 'GET';
    readonly path: (segment: string) => string;
    readonly scope: Scope;
  };
} = {
  unarchiveEmployee: {
    method: 'PUT',
    path: (id) => `/labor/v1/employees/${id}/unarchive`,
    scope: 'labor.employees:write',
  },
  archiveEmployee: {
    method: 'DELETE',
    path: (id) => `/labor/v1/employees/${id}`,
    scope: 'labor.employees:write',
  },
  deleteShift: {
    method: 'DELETE',
    path: (id) => `/labor/v1/shifts/${id}`,
    scope: 'labor.shifts:write',
  },
  getRestaurant: {
    method: 'GET',
    path: (id) => `/restaurants/v1/restaurants/${id}`,
    scope: 'restaurants:read',
  },
};

// Marks on A's names and external identifiers, so that a mention of them cannot be a coincidence
// with B's data or the fixed text of an answer (dates, problem type URIs).
const A_RESTAURANT_NAME = 'Quartermaine Oyster House';
const A_FIRST_NAME = 'Ophelia';

interface World {
  readonly a: Restaurant;
  readonly b: Restaurant;
  readonly aEmployees: readonly Employee[];
  readonly aShifts: readonly Shift[];
  readonly bEmployees: readonly Employee[];
  readonly bShifts: readonly Shift[];
  /** The external identifier of A's first shift and of B's first shift. */
  readonly shared: ExternalId;
  /** A third restaurant, which a token may name besides B. */
  readonly another: Guid;
}

function asArchived(employee: Employee): Employee {
  const { swipeCard: _dropped, ...rest } = employee;
  return { ...rest, deleted: true, deletedDate: employee.deletedDate ?? employee.modifiedDate };
}

function asActive(employee: Employee): Employee {
  const { deletedDate: _none, ...rest } = employee;
  return { ...rest, deleted: false };
}

/** Employees of a restaurant: the first archived, the second not, the others either. */
const employeesArb = (restaurant: Guid) =>
  fc
    .array(employeeArb(restaurant), { minLength: 2, maxLength: 4 })
    .map((list) => list.map((e, i) => (i === 0 ? asArchived(e) : i === 1 ? asActive(e) : e)));

/** Shifts of a restaurant, each with an external identifier. */
const shiftsArb = (restaurant: Guid) =>
  fc
    .array(fc.tuple(shiftArb(restaurant), externalIdArb), { minLength: 1, maxLength: 4 })
    .map((list) => list.map(([shift, externalId]) => ({ ...shift, externalId })));

/** `QZ` before the naming authority marks an external identifier as A's. */
const markedExternalId = (id: ExternalId | undefined): ExternalId | undefined => {
  if (id === undefined) return undefined;
  const colon = id.indexOf(':');
  return `QZ${id.slice(0, colon).slice(0, 14)}${id.slice(colon)}` as ExternalId;
};

const worldArb: fc.Arbitrary<World> = fc
  .record({ a: restaurantArb, b: restaurantArb })
  .chain(({ a, b }) =>
    fc.record({
      a: fc.constant({ ...a, general: { ...a.general, name: A_RESTAURANT_NAME } }),
      b: fc.constant(b),
      aEmployees: employeesArb(a.guid).map((list) =>
        list.map((e, i) => {
          const externalId = markedExternalId(e.externalId);
          return {
            ...e,
            firstName: A_FIRST_NAME,
            lastName: `Quartermaine-${i}`,
            email: `ophelia.${i}@quartermaine.example`,
            ...(externalId === undefined ? {} : { externalId }),
          };
        }),
      ),
      aShifts: shiftsArb(a.guid),
      bEmployees: employeesArb(b.guid),
      bShifts: shiftsArb(b.guid),
      shared: externalIdArb,
      another: guidArb,
    }),
  )
  .map(({ aShifts, bShifts, aEmployees, bEmployees, shared, ...rest }) => ({
    ...rest,
    shared,
    // The first employee and shift of each restaurant share an external id: it must name each
    // restaurant's own record only.
    aEmployees: aEmployees.map((e, i) => (i === 0 ? { ...e, externalId: shared } : e)),
    bEmployees: bEmployees.map((e, i) => (i === 0 ? { ...e, externalId: shared } : e)),
    aShifts: aShifts.map((s, i) => ({
      ...s,
      externalId: i === 0 ? shared : (markedExternalId(s.externalId) ?? shared),
    })),
    bShifts: bShifts.map((s, i) => (i === 0 ? { ...s, externalId: shared } : s)),
  }))
  .filter((world) => {
    // Shrinking can make generated GUIDs or external identifiers equal; the model needs them distinct.
    const guids = [
      world.a.guid,
      world.b.guid,
      world.another,
      ...[...world.aEmployees, ...world.aShifts, ...world.bEmployees, ...world.bShifts].map(
        (r) => r.guid,
      ),
    ];
    const unique = (ids: readonly (string | undefined)[]) => new Set(ids).size === ids.length;
    return (
      unique(guids) &&
      unique(world.aShifts.map((s) => s.externalId)) &&
      unique(world.bShifts.map((s) => s.externalId)) &&
      unique(world.aEmployees.flatMap((e) => (e.externalId === undefined ? [] : [e.externalId]))) &&
      unique(world.bEmployees.flatMap((e) => (e.externalId === undefined ? [] : [e.externalId])))
    );
  });

/** What a request names: an identifier of A's or B's records, resolved against the world. */
type Target =
  | {
      readonly kind:
        | 'aEmployee'
        | 'aEmployeeExternalId'
        | 'aShift'
        | 'aShiftExternalId'
        | 'bEmployee'
        | 'bEmployeeExternalId'
        | 'bShift'
        | 'bShiftExternalId';
      readonly index: number;
    }
  | { readonly kind: 'shared' | 'aRestaurant' | 'bRestaurant' };

/** Who sends it: B's context, or A's with a token that does not name A. */
type Grant = 'b' | 'all' | 'b-and-another' | 'b-upper-case';

interface RequestSpec {
  readonly operation: OperationId;
  readonly target: Target;
  readonly inContextOfA: boolean;
  readonly grant: Grant;
  readonly scopes: readonly Scope[];
  readonly includeArchived: 'true' | 'false' | undefined;
  readonly body: '{}' | '';
  /** Letter case of the GUID in the path and of the context header. */
  readonly pathCase: readonly boolean[];
  readonly contextCase: readonly boolean[];
  /** Whether the colon of an external identifier goes unencoded. */
  readonly rawColon: boolean;
}

const indexArb = fc.nat({ max: 3 });
const caseArb = fc.array(fc.boolean(), { minLength: 36, maxLength: 36 });
const targetArb: fc.Arbitrary<Target> = fc.oneof(
  { weight: 3, arbitrary: indexArb.map((index) => ({ kind: 'aEmployee' as const, index })) },
  {
    weight: 2,
    arbitrary: indexArb.map((index) => ({ kind: 'aEmployeeExternalId' as const, index })),
  },
  { weight: 3, arbitrary: indexArb.map((index) => ({ kind: 'aShift' as const, index })) },
  { weight: 3, arbitrary: indexArb.map((index) => ({ kind: 'aShiftExternalId' as const, index })) },
  { weight: 2, arbitrary: fc.constant({ kind: 'aRestaurant' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'shared' as const }) },
  { weight: 2, arbitrary: indexArb.map((index) => ({ kind: 'bEmployee' as const, index })) },
  {
    weight: 1,
    arbitrary: indexArb.map((index) => ({ kind: 'bEmployeeExternalId' as const, index })),
  },
  { weight: 1, arbitrary: indexArb.map((index) => ({ kind: 'bShift' as const, index })) },
  { weight: 1, arbitrary: indexArb.map((index) => ({ kind: 'bShiftExternalId' as const, index })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'bRestaurant' as const }) },
);

const requestArb: fc.Arbitrary<RequestSpec> = fc
  .record({
    operation: fc.constantFrom<OperationId>(
      'unarchiveEmployee',
      'archiveEmployee',
      'deleteShift',
      'getRestaurant',
    ),
    target: targetArb,
    inContextOfA: fc.oneof(
      { weight: 3, arbitrary: fc.constant(false) },
      { weight: 1, arbitrary: fc.constant(true) },
    ),
    grant: fc.constantFrom<Grant>('b', 'all', 'b-and-another', 'b-upper-case'),
    // Mostly the operation's scope; sometimes any subset, the empty one included.
    scopes: fc.oneof(
      { weight: 3, arbitrary: fc.constant([...SCOPES]) },
      { weight: 1, arbitrary: fc.subarray([...SCOPES]) },
    ),
    includeArchived: fc.constantFrom('true' as const, 'false' as const, undefined),
    body: fc.constantFrom('{}' as const, '' as const),
    pathCase: caseArb,
    contextCase: caseArb,
    rawColon: fc.boolean(),
  })
  // In A's context, a token for "*" may act for A: that is not a request acting for B only.
  .map((spec) => (spec.inContextOfA && spec.grant === 'all' ? { ...spec, grant: 'b' } : spec));

const withCase = (guid: string, upper: readonly boolean[]) =>
  [...guid].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join('');

const at = <T>(list: readonly T[], index: number): T => {
  const item = list[index % list.length];
  if (item === undefined) throw new Error('empty list');
  return item;
};

/** The identifier the request names, as a client means it (decoded). */
function identifierOf(world: World, target: Target, pathCase: readonly boolean[]): string {
  switch (target.kind) {
    case 'aEmployee':
      return withCase(at(world.aEmployees, target.index).guid, pathCase);
    case 'aEmployeeExternalId':
      return at(world.aEmployees, target.index).externalId ?? world.shared;
    case 'aShift':
      return withCase(at(world.aShifts, target.index).guid, pathCase);
    case 'aShiftExternalId':
      return at(world.aShifts, target.index).externalId ?? world.shared;
    case 'bEmployee':
      return withCase(at(world.bEmployees, target.index).guid, pathCase);
    case 'bEmployeeExternalId':
      return at(world.bEmployees, target.index).externalId ?? world.shared;
    case 'bShift':
      return withCase(at(world.bShifts, target.index).guid, pathCase);
    case 'bShiftExternalId':
      return at(world.bShifts, target.index).externalId ?? world.shared;
    case 'shared':
      return world.shared;
    case 'aRestaurant':
      return withCase(world.a.guid, pathCase);
    case 'bRestaurant':
      return withCase(world.b.guid, pathCase);
    default: {
      const unknown: never = target;
      return unknown;
    }
  }
}

/** Every string in a value, at any depth. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (value !== null && typeof value === 'object') return Object.values(value).flatMap(stringsIn);
  return [];
}

/**
 * What must not be mentioned: every GUID in A's records, and A's external identifiers and names;
 * less what B's records hold too (the shared external identifier), which B's answers may show.
 */
function secretsOf(world: World): { readonly guids: string[]; readonly texts: string[] } {
  const aRecords = [world.a, ...world.aEmployees, ...world.aShifts];
  const bText = stringsIn([world.b, ...world.bEmployees, ...world.bShifts])
    .join('\n')
    .toLowerCase();
  const texts = [
    world.a.general.name,
    ...world.aEmployees.flatMap((e) => [e.externalId, e.firstName, e.lastName, e.email]),
    ...world.aShifts.map((s) => s.externalId),
  ].filter((text): text is string => text !== undefined);
  const guids = stringsIn(aRecords)
    .filter(isGuid)
    .map((guid) => guid.toLowerCase());
  return {
    guids: [...new Set(guids)].filter((guid) => !bText.includes(guid)),
    texts: [...new Set(texts)].filter((text) => !bText.includes(text.toLowerCase())),
  };
}

interface Sent {
  readonly status: number;
  readonly text: string;
  readonly body: Record<string, unknown>;
}

/** The model of B's records: which employees are archived, which shifts deleted. */
interface Model {
  readonly archived: Map<Guid, boolean>;
  readonly deleted: Map<Guid, boolean>;
  changes: number;
}

type Expected =
  | { readonly status: 200; readonly guid: Guid; readonly deleted?: boolean }
  | { readonly status: 400 | 403 | 404; readonly code: string };

/** The documented answer, from the model; applies the change it makes. */
function expectedAnswer(
  world: World,
  model: Model,
  spec: RequestSpec,
  identifier: string,
): Expected {
  const operation = OPERATIONS[spec.operation];
  if (!spec.scopes.includes(operation.scope)) return { status: 403, code: 'INSUFFICIENT_SCOPE' };
  if (spec.inContextOfA) return { status: 403, code: 'RESTAURANT_NOT_PERMITTED' };
  const lower = identifier.toLowerCase();
  switch (spec.operation) {
    case 'unarchiveEmployee':
    case 'archiveEmployee': {
      // Archive takes a GUID or an external identifier; unarchive a GUID only.
      const archiving = spec.operation === 'archiveEmployee';
      const byExternalId = archiving && !isGuid(identifier);
      if (!isGuid(identifier) && !byExternalId) return { status: 400, code: 'VALIDATION_FAILED' };
      const employee = world.bEmployees.find((e) =>
        byExternalId ? e.externalId === identifier : e.guid === lower,
      );
      if (employee === undefined) return { status: 404, code: 'EMPLOYEE_NOT_FOUND' };
      const archived = model.archived.get(employee.guid) ?? employee.deleted;
      if (archived && archiving) return { status: 200, guid: employee.guid, deleted: true };
      if (!archived && !archiving) return { status: 400, code: 'EMPLOYEE_NOT_ARCHIVED' };
      model.archived.set(employee.guid, archiving);
      model.changes += 1;
      return { status: 200, guid: employee.guid, deleted: archiving };
    }
    case 'deleteShift': {
      const shift = isGuid(identifier)
        ? world.bShifts.find((s) => s.guid === lower)
        : world.bShifts.find((s) => s.externalId === identifier);
      if (shift === undefined) return { status: 404, code: 'SHIFT_NOT_FOUND' };
      if (!(model.deleted.get(shift.guid) ?? shift.deleted)) model.changes += 1;
      model.deleted.set(shift.guid, true);
      return { status: 200, guid: shift.guid, deleted: true };
    }
    case 'getRestaurant': {
      const visible =
        isGuid(identifier) &&
        lower === world.b.guid &&
        (!world.b.general.archived || spec.includeArchived === 'true');
      return visible
        ? { status: 200, guid: world.b.guid }
        : { status: 404, code: 'RESTAURANT_NOT_FOUND' };
    }
    default: {
      const unknown: never = spec.operation;
      return unknown;
    }
  }
}

let server: RouterServer;
let baseUrl: string;
/** The store the app reads and writes: the run's, or its twin's. */
let current: MemoryStore = createMemoryStore();
let now = new Date('2026-06-01T12:00:00.000Z');

beforeAll(async () => {
  server = await startRouterServer({
    store: delegatingStore(() => current),
    auth: createJwtVerifier({ hs256Secret: SECRET }),
    validateResponses: true,
    rateLimit: false,
    clock: { now: () => now },
  });
  baseUrl = server.baseUrl;
});

afterAll(() => server.close());

async function send(
  store: MemoryStore,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<Sent> {
  current = store;
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

/** The records of A as the store's repositories return them now. */
async function readBackA(store: MemoryStore, world: World) {
  return {
    restaurant: (await store.restaurants.findByGuid(world.a.guid))._unsafeUnwrap(),
    employees: await Promise.all(
      world.aEmployees.map(async (e) =>
        (await store.employees.find(world.a.guid, { kind: 'guid', guid: e.guid }))._unsafeUnwrap(),
      ),
    ),
    shifts: await Promise.all(
      world.aShifts.map(async (s) =>
        (await store.shifts.find(world.a.guid, { kind: 'guid', guid: s.guid }))._unsafeUnwrap(),
      ),
    ),
    shiftsByExternalId: await Promise.all(
      world.aShifts.map(async (s) =>
        (
          await store.shifts.find(world.a.guid, {
            kind: 'externalId',
            externalId: s.externalId ?? world.shared,
          })
        )._unsafeUnwrap(),
      ),
    ),
  };
}

describe('tenant isolation over HTTP', () => {
  it('no request that may act only for B returns, reveals or changes a record of A', async () => {
    let requests = 0;
    let ofA = 0;
    await fc.assert(
      fc.asyncProperty(
        worldArb,
        fc.array(requestArb, { minLength: 1, maxLength: MAX_REQUESTS_PER_RUN }),
        async (world, specs) => {
          const store = createMemoryStore(
            aSeed({
              restaurants: [world.a, world.b],
              employees: [...world.aEmployees, ...world.bEmployees],
              shifts: [...world.aShifts, ...world.bShifts],
            }),
          );
          const twin = createMemoryStore(
            aSeed({ restaurants: [world.b], employees: world.bEmployees, shifts: world.bShifts }),
          );
          const seededA = await readBackA(store, world);
          const secrets = secretsOf(world);
          const aGuids = new Set(
            [world.a, ...world.aEmployees, ...world.aShifts].map((r) => r.guid as string),
          );
          const model: Model = { archived: new Map(), deleted: new Map(), changes: 0 };
          const tokens = new Map<string, string>();
          const tokenOf = (grant: Grant, scopes: readonly Scope[]) => {
            const key = `${grant} ${scopes.join(' ')}`;
            const restaurants =
              grant === 'all'
                ? '*'
                : grant === 'b'
                  ? [world.b.guid]
                  : grant === 'b-upper-case'
                    ? [world.b.guid.toUpperCase()]
                    : [world.b.guid, world.another];
            const issuedAt = Math.floor(Date.now() / 1000);
            const token =
              tokens.get(key) ??
              signJwt(
                { scope: scopes.join(' '), restaurants, iat: issuedAt, exp: issuedAt + 900 },
                SECRET,
              );
            tokens.set(key, token);
            return token;
          };

          for (const [i, spec] of specs.entries()) {
            const operation = OPERATIONS[spec.operation];
            const identifier = identifierOf(world, spec.target, spec.pathCase);
            const encoded = encodeURIComponent(identifier);
            const segment = spec.rawColon ? encoded.replaceAll('%3A', ':') : encoded;
            const query =
              spec.operation === 'getRestaurant' && spec.includeArchived !== undefined
                ? `?includeArchived=${spec.includeArchived}`
                : '';
            const path = `${operation.path(segment)}${query}`;
            const context = withCase(
              spec.inContextOfA ? world.a.guid : world.b.guid,
              spec.contextCase,
            );
            const headers: Record<string, string> = {
              authorization: `Bearer ${tokenOf(spec.grant, spec.scopes)}`,
              'platform-restaurant-external-id': context,
              'x-request-id': `isolation-${i}`,
            };
            let body: string | undefined;
            if (operation.method === 'PUT') {
              headers['content-type'] = 'application/json';
              body = spec.body;
            }
            const label = `${operation.method} ${path} in the context of ${context} (${spec.grant}; ${spec.scopes.join(' ')})`;

            now = new Date(Date.UTC(2026, 5, 1, 12, 0, i));
            const answer = await send(store, operation.method, path, headers, body);
            const twinAnswer = await send(twin, operation.method, path, headers, body);
            requests += 2;
            if (spec.target.kind.startsWith('a') || spec.inContextOfA) ofA += 1;

            // The documented status (and code, or record).
            const expected = expectedAnswer(world, model, spec, identifier);
            expect(answer.status, `${label}: ${answer.text}`).toBe(expected.status);
            if (expected.status === 200) {
              expect(answer.body.guid, label).toBe(expected.guid);
              if (expected.deleted !== undefined) {
                expect(answer.body.deleted, label).toBe(expected.deleted);
              }
            } else {
              expect(answer.body.code, `${label}: ${answer.text}`).toBe(expected.code);
            }

            // No 2xx body is a record of A.
            if (answer.status < 300) {
              expect(aGuids.has(String(answer.body.guid).toLowerCase()), label).toBe(false);
            }

            // No mention of A that the request did not carry itself.
            const carried = `${identifier}\n${decodeURIComponent(path)}\n${context}`.toLowerCase();
            const said = answer.text.toLowerCase();
            for (const guid of secrets.guids) {
              if (!carried.includes(guid))
                expect(said.includes(guid), `${label}: ${guid}`).toBe(false);
            }
            for (const text of secrets.texts) {
              if (!carried.includes(text.toLowerCase())) {
                expect(answer.text.includes(text), `${label}: ${text}`).toBe(false);
              }
            }

            // Nothing in the answer depends on A: the store without A answers the same.
            expect({ status: twinAnswer.status, text: twinAnswer.text }, label).toEqual({
              status: answer.status,
              text: answer.text,
            });

            // A's records and events are as seeded; B's records are as the model says.
            expect(await readBackA(store, world), label).toEqual(seededA);
            const events = store.recordedEvents();
            expect(
              events.filter((e) => e.restaurantGuid !== world.b.guid),
              label,
            ).toEqual([]);
            expect(events, label).toHaveLength(model.changes);
          }

          for (const employee of world.bEmployees) {
            const stored = (
              await store.employees.find(world.b.guid, { kind: 'guid', guid: employee.guid })
            )._unsafeUnwrap();
            expect(stored?.deleted).toBe(model.archived.get(employee.guid) ?? employee.deleted);
          }
          for (const shift of world.bShifts) {
            const stored = (
              await store.shifts.find(world.b.guid, { kind: 'guid', guid: shift.guid })
            )._unsafeUnwrap();
            expect(stored?.deleted).toBe(model.deleted.get(shift.guid) ?? shift.deleted);
          }
        },
      ),
      { numRuns: RUNS },
    );
    // The runs did exercise A's records and A's context, not only B's.
    expect(ofA).toBeGreaterThan(RUNS);
    console.info(`tenant isolation: ${requests} requests over ${RUNS} runs`);
  }, 120_000);
});
