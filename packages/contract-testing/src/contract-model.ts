// The model of the target's state: the seed's records (their wire form, projected through the
// spec's schemas), what the kit knows of each one's state now, and the answer the state tables
// (docs/contract.md) give to a call. Paths, methods, scopes, header and parameter names come from
// the spec; the state tables are what the model adds.
import { isDeepStrictEqual } from 'node:util';
import type { Exchange, HttpClient, WireRequest, WireResponse } from './http-client.js';
import {
  check,
  checkDocumented,
  checkProblem,
  fail,
  jsonOf,
  type RuleName,
  show,
  Violation,
} from './response-checks.js';
import type { SeedData, SeedEntry } from './seed-source.js';
import {
  documentedCodes,
  isUnconstrained,
  isValidText,
  type Spec,
  type SpecOperation,
  type SpecParameter,
} from './spec-reader.js';
import type { Grant, TokenSource } from './token-source.js';

/** The operations of the state tables, by the spec's operationId. */
export const ROLES = {
  unarchive: 'unarchiveEmployee',
  archive: 'archiveEmployee',
  deleteShift: 'deleteShift',
  getRestaurant: 'getRestaurant',
} as const;
export type Role = keyof typeof ROLES;
export const ROLE_NAMES = Object.keys(ROLES) as Role[];

const DATE_FIELDS = ['createdDate', 'modifiedDate', 'deletedDate'] as const;
type DateField = (typeof DATE_FIELDS)[number];

export interface WorldRecord {
  readonly kind: 'employee' | 'shift';
  readonly restaurant: string;
  readonly guid: string;
  readonly externalId?: string;
  /** The wire fields besides the dates and `deleted`: the seed's, through the spec's schema. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly seedDeleted: boolean;
  readonly seedDates: Readonly<Partial<Record<DateField, string>>>;
}

export interface WorldRestaurant {
  readonly guid: string;
  readonly archived: boolean;
  readonly body: Readonly<Record<string, unknown>>;
}

export interface World {
  readonly restaurants: readonly WorldRestaurant[];
  readonly employees: readonly WorldRecord[];
  readonly shifts: readonly WorldRecord[];
  readonly byGuid: ReadonlyMap<string, WorldRecord>;
}

/** What the kit knows of a record now. */
export interface RecordState {
  deleted: boolean;
  dates: Partial<Record<DateField, string>>;
}

export type Knowledge = Map<string, RecordState>;

/** The spec's record schema's properties, the seed's values for them, and its constants. */
function project(spec: Spec, schemaName: string, entry: SeedEntry): Record<string, unknown> {
  const schema = spec.componentSchema(schemaName) as
    | { properties?: Readonly<Record<string, { const?: unknown }>> }
    | undefined;
  const properties = schema?.properties ?? {};
  const fields: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    if ((DATE_FIELDS as readonly string[]).includes(name) || name === 'deleted') continue;
    if (property !== null && typeof property === 'object' && 'const' in property) {
      fields[name] = property.const;
    } else if (entry.fields[name] !== undefined) fields[name] = entry.fields[name];
  }
  return fields;
}

export function buildWorld(spec: Spec, seed: SeedData): World {
  const record =
    (kind: 'employee' | 'shift', schemaName: string) =>
    (entry: SeedEntry): WorldRecord => ({
      kind,
      restaurant: entry.restaurantGuid,
      guid: entry.guid,
      ...(entry.externalId === undefined ? {} : { externalId: entry.externalId }),
      fields: project(spec, schemaName, entry),
      seedDeleted: entry.deleted,
      seedDates: Object.fromEntries(
        DATE_FIELDS.filter((name) => entry.knownDates.has(name)).map((name) => [
          name,
          String(entry.fields[name]),
        ]),
      ),
    });
  const employees = seed.employees.map(record('employee', 'Employee'));
  const shifts = seed.shifts.map(record('shift', 'Shift'));
  return {
    restaurants: seed.restaurants.map((r) => ({
      guid: r.guid,
      archived: r.archived,
      body: r.fields,
    })),
    employees,
    shifts,
    byGuid: new Map([...employees, ...shifts].map((r) => [r.guid, r])),
  };
}

export function seedKnowledge(world: World): Knowledge {
  return new Map(
    [...world.employees, ...world.shifts].map((r) => [
      r.guid,
      { deleted: r.seedDeleted, dates: { ...r.seedDates } },
    ]),
  );
}

export function cloneKnowledge(knowledge: Knowledge): Knowledge {
  return new Map(
    [...knowledge].map(([guid, s]) => [guid, { deleted: s.deleted, dates: { ...s.dates } }]),
  );
}

/** One request of the state tables, as the model sees it. */
export interface Call {
  readonly role: Role;
  /** The context header's value as sent (any letter case). */
  readonly context: string;
  readonly grant: Grant;
  /** The path parameter's value as sent, before percent-encoding. */
  readonly id: string;
  readonly includeArchived?: 'true' | 'false';
  /** Send the `:` of an external id unencoded (the same value). */
  readonly rawColon?: boolean;
}

export type Expected =
  | {
      readonly kind: 'record';
      readonly record: WorldRecord;
      readonly transition: 'unarchive' | 'archive' | 'delete' | 'none';
      readonly rule: RuleName;
    }
  | { readonly kind: 'restaurant'; readonly restaurant: WorldRestaurant }
  | {
      readonly kind: 'problem';
      readonly status: number;
      readonly code: string;
      readonly rule: RuleName;
    };

/** Everything a property works with. */
export interface Engine {
  readonly spec: Spec;
  readonly world: World;
  readonly client: HttpClient;
  readonly tokens: TokenSource;
  readonly operations: Readonly<Record<Role, SpecOperation>>;
  /** Puts a fresh, seeded app behind the base URL (in-process factories only). */
  readonly fresh: (() => Promise<void>) | undefined;
  /** What the kit knows of the target's records now. */
  knowledge: Knowledge;
  /** The knowledge at the start of the current run (for a replay's setup). */
  runStart: Knowledge;
  /** Texts of other restaurants a context's answers must not show, by context restaurant. */
  readonly secrets: Map<string, readonly string[]>;
}

export const pathParameterOf = (op: SpecOperation): SpecParameter => {
  const found = op.parameters.find((p) => p.in === 'path');
  if (found === undefined) throw new Error(`${op.id} has no path parameter`);
  return found;
};

/** The restaurant context header: the required header whose schema constrains its value. */
export const contextHeaderOf = (op: SpecOperation): SpecParameter | undefined =>
  op.parameters.find((p) => p.in === 'header' && p.required && !isUnconstrained(p));

/** The boolean query parameter of an operation (getRestaurant's includeArchived). */
export const flagOf = (op: SpecOperation): SpecParameter | undefined =>
  op.parameters.find((p) => p.in === 'query' && p.schema.type === 'boolean');

/** The spec's operations of the state tables; throws when one is missing or lacks a documented code. */
export function stateTableOperations(spec: Spec): Record<Role, SpecOperation> {
  const found = {} as Record<Role, SpecOperation>;
  for (const role of ROLE_NAMES) {
    const op = spec.operations.find((o) => o.id === ROLES[role]);
    if (op === undefined) throw new Error(`the spec has no operation ${ROLES[role]}`);
    if (contextHeaderOf(op) === undefined) throw new Error(`${op.id} has no context header`);
    pathParameterOf(op);
    found[role] = op;
  }
  const documents = (role: Role, status: number, code: string) => {
    const schema = found[role].responses
      .get(String(status))
      ?.content.get('application/problem+json');
    if (!documentedCodes(spec, schema).includes(code)) {
      throw new Error(`the spec does not list ${code} for ${status} of ${ROLES[role]}`);
    }
  };
  for (const role of ROLE_NAMES) {
    documents(role, 403, 'INSUFFICIENT_SCOPE');
    documents(role, 403, 'RESTAURANT_NOT_PERMITTED');
    documents(role, 404, NOT_FOUND_CODE[role]);
  }
  documents('unarchive', 400, 'EMPLOYEE_NOT_ARCHIVED');
  documents('unarchive', 400, 'VALIDATION_FAILED');
  documents('archive', 400, 'VALIDATION_FAILED');
  documents('deleteShift', 400, 'VALIDATION_FAILED');
  return found;
}

const NOT_FOUND_CODE: Record<Role, string> = {
  unarchive: 'EMPLOYEE_NOT_FOUND',
  archive: 'EMPLOYEE_NOT_FOUND',
  deleteShift: 'SHIFT_NOT_FOUND',
  getRestaurant: 'RESTAURANT_NOT_FOUND',
};

const problem = (status: number, code: string, rule: RuleName): Expected => ({
  kind: 'problem',
  status,
  code,
  rule,
});

const isGuid = (engine: Engine, text: string) =>
  engine.spec.validator.matches(engine.spec.schema('GuidInput'), text);

/** The record a call names in its context restaurant, if any. */
export function recordNamed(engine: Engine, call: Call): WorldRecord | undefined {
  if (call.role === 'getRestaurant') return undefined;
  const pool = call.role === 'deleteShift' ? engine.world.shifts : engine.world.employees;
  const byGuid = isGuid(engine, call.id);
  const context = call.context.toLowerCase();
  return pool.find(
    (r) =>
      r.restaurant === context &&
      (byGuid ? r.guid === call.id.toLowerCase() : r.externalId === call.id),
  );
}

/** The answer the contract gives to `call` in the state `knowledge` describes. */
export function expectedAnswer(engine: Engine, knowledge: Knowledge, call: Call): Expected {
  const op = engine.operations[call.role];
  if (!call.grant.scopes.includes(op.scope))
    return problem(403, 'INSUFFICIENT_SCOPE', 'insufficient-scope');
  const context = call.context.toLowerCase();
  if (
    call.grant.restaurants !== '*' &&
    !call.grant.restaurants.some((r) => r.toLowerCase() === context)
  ) {
    return problem(403, 'RESTAURANT_NOT_PERMITTED', 'restaurant-not-permitted');
  }
  const byGuid = isGuid(engine, call.id);
  if (call.role === 'getRestaurant') {
    const named = byGuid
      ? engine.world.restaurants.find((r) => r.guid === call.id.toLowerCase())
      : undefined;
    if (named !== undefined && named.guid === context) {
      return !named.archived || call.includeArchived === 'true'
        ? { kind: 'restaurant', restaurant: named }
        : problem(404, 'RESTAURANT_NOT_FOUND', 'restaurant-read');
    }
    return problem(
      404,
      'RESTAURANT_NOT_FOUND',
      named === undefined ? 'restaurant-read' : 'other-restaurant-invisible',
    );
  }
  if (!isValidText(engine.spec, pathParameterOf(op), call.id)) {
    return problem(400, 'VALIDATION_FAILED', 'malformed-identifier');
  }
  const own = recordNamed(engine, call);
  if (own === undefined) {
    const pool = call.role === 'deleteShift' ? engine.world.shifts : engine.world.employees;
    const foreign = pool.some((r) =>
      byGuid ? r.guid === call.id.toLowerCase() : r.externalId === call.id,
    );
    return problem(
      404,
      NOT_FOUND_CODE[call.role],
      foreign ? 'other-restaurant-invisible' : 'not-found',
    );
  }
  const deleted = knowledge.get(own.guid)?.deleted ?? own.seedDeleted;
  const record = (
    transition: 'unarchive' | 'archive' | 'delete' | 'none',
    rule: RuleName,
  ): Expected => ({
    kind: 'record',
    record: own,
    transition,
    rule,
  });
  switch (call.role) {
    case 'unarchive':
      return deleted
        ? record('unarchive', 'unarchive-archived')
        : problem(400, 'EMPLOYEE_NOT_ARCHIVED', 'unarchive-unarchived');
    case 'archive':
      return deleted ? record('none', 'archive-archived') : record('archive', 'archive-unarchived');
    case 'deleteShift':
      return deleted ? record('none', 'delete-deleted-shift') : record('delete', 'delete-shift');
    default: {
      const unknown: never = call.role;
      return unknown;
    }
  }
}

/** A call on the wire. */
export async function toWire(engine: Engine, call: Call): Promise<WireRequest> {
  const op = engine.operations[call.role];
  const param = pathParameterOf(op);
  let segment = encodeURIComponent(call.id);
  if (call.rawColon) segment = segment.replaceAll('%3A', ':');
  const flag = flagOf(op);
  const query =
    flag !== undefined && call.includeArchived !== undefined
      ? `?${encodeURIComponent(flag.name)}=${call.includeArchived}`
      : '';
  const headers: Record<string, string> = {
    Authorization: `Bearer ${await engine.tokens.token(call.grant)}`,
    [contextHeaderOf(op)?.name ?? '']: call.context,
  };
  let body: string | undefined;
  const mediaType = op.requestMediaTypes?.[0];
  if (mediaType !== undefined) {
    headers['Content-Type'] = mediaType;
    body = '{}';
  }
  return {
    method: op.method,
    path: `${op.template.replace(`{${param.name}}`, segment)}${query}`,
    headers,
    ...(body === undefined ? {} : { body }),
  };
}

function describeDiff(
  got: Readonly<Record<string, unknown>>,
  want: Readonly<Record<string, unknown>>,
) {
  const keys = [...new Set([...Object.keys(got), ...Object.keys(want)])];
  return keys
    .filter((key) => !isDeepStrictEqual(got[key], want[key]))
    .map(
      (key) =>
        `${key}: ${key in got ? JSON.stringify(got[key]) : '(absent)'}, expected ${key in want ? JSON.stringify(want[key]) : '(absent)'}`,
    )
    .join('; ');
}

/** Holds an answer to the expected one; throws a {@link Violation}. */
export function checkAnswer(
  engine: Engine,
  knowledge: Knowledge,
  op: SpecOperation,
  expected: Expected,
  req: WireRequest,
  res: WireResponse,
): void {
  // The state tables first, so that a wrong answer is named by the rule it breaks.
  check(res.status < 500, 'no-server-error', () => show(req, res));
  if (expected.kind === 'problem') {
    checkProblem(expected.rule, req, res, expected.status, expected.code);
    checkDocumented(engine.spec, op, req, res);
    return;
  }
  check(
    res.status === 200,
    expected.kind === 'record' ? expected.rule : 'restaurant-read',
    () => `expected 200: ${show(req, res)}`,
  );
  checkDocumented(engine.spec, op, req, res);
  if (req.method === 'HEAD') return;
  const body = jsonOf(res) as Record<string, unknown>;
  if (expected.kind === 'restaurant') {
    check(
      isDeepStrictEqual(body, expected.restaurant.body),
      'restaurant-read',
      () => `the restaurant differs from the seed: ${describeDiff(body, expected.restaurant.body)}`,
    );
    return;
  }
  const { record, transition, rule } = expected;
  const before = knowledge.get(record.guid) ?? { deleted: record.seedDeleted, dates: {} };
  const deleted = transition === 'none' ? before.deleted : transition !== 'unarchive';
  check(
    body.guid === record.guid,
    rule,
    () => `expected the record ${record.guid}: ${show(req, res)}`,
  );
  check(body.deleted === deleted, rule, () => `expected deleted: ${deleted}: ${show(req, res)}`);
  const fields = Object.fromEntries(
    Object.entries(body).filter(
      ([key]) => !(DATE_FIELDS as readonly string[]).includes(key) && key !== 'deleted',
    ),
  );
  check(
    isDeepStrictEqual(fields, record.fields),
    'record-fields',
    () => `${record.guid}: ${describeDiff(fields, record.fields)}`,
  );
  check('deletedDate' in body === deleted, 'deleted-date', () => show(req, res));
  const known = before.dates;
  if (known.createdDate !== undefined) {
    check(
      body.createdDate === known.createdDate,
      'record-fields',
      () => `createdDate changed from ${known.createdDate}: ${show(req, res)}`,
    );
  }
  if (transition === 'none') {
    for (const name of ['modifiedDate', 'deletedDate'] as const) {
      if (known[name] !== undefined) {
        check(
          body[name] === known[name],
          rule,
          () => `${name} changed from ${known[name]} to ${String(body[name])}: ${show(req, res)}`,
        );
      }
    }
  }
}

/** Brings the knowledge in line with what an answer shows, right or wrong. */
export function observe(engine: Engine, knowledge: Knowledge, call: Call, res: WireResponse): void {
  const body = jsonOf(res) as Record<string, unknown> | undefined;
  if (res.status === 200 && typeof body?.guid === 'string' && typeof body.deleted === 'boolean') {
    const record = engine.world.byGuid.get(body.guid);
    if (record !== undefined) {
      const dates: Partial<Record<DateField, string>> = {};
      for (const name of DATE_FIELDS) {
        if (typeof body[name] === 'string') dates[name] = body[name] as string;
      }
      knowledge.set(record.guid, { deleted: body.deleted, dates });
    }
    return;
  }
  const named = recordNamed(engine, call);
  if (named !== undefined && call.role === 'unarchive' && res.status === 400) {
    const code = (body as { code?: unknown } | undefined)?.code;
    if (code === 'EMPLOYEE_NOT_ARCHIVED') {
      const state = knowledge.get(named.guid);
      if (state?.deleted) {
        const { deletedDate: _gone, ...dates } = state.dates;
        knowledge.set(named.guid, { deleted: false, dates });
      }
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

/** What an answer in `context`'s restaurant must not mention: other restaurants' texts. */
export function secretsFor(engine: Engine, context: string): readonly string[] {
  const known = engine.secrets.get(context);
  if (known !== undefined) return known;
  const { world } = engine;
  const dataOf = (guid: string) => [
    world.restaurants.find((r) => r.guid === guid)?.body ?? { guid },
    ...[...world.employees, ...world.shifts]
      .filter((r) => r.restaurant === guid)
      .map((r) => ({ guid: r.guid, ...r.fields })),
  ];
  const own = stringsIn(dataOf(context)).join('\n').toLowerCase();
  const constants = new Set(
    ['Employee', 'Shift']
      .flatMap((name) => stringsIn(engine.spec.componentSchema(name)))
      .map((text) => text.toLowerCase()),
  );
  const secrets = [
    ...new Set(
      world.restaurants.filter((r) => r.guid !== context).flatMap((r) => stringsIn(dataOf(r.guid))),
    ),
  ].filter(
    (text) =>
      text.length >= 4 &&
      !/^\d{4}-\d{2}-\d{2}T/.test(text) &&
      !constants.has(text.toLowerCase()) &&
      !own.includes(text.toLowerCase()),
  );
  engine.secrets.set(context, secrets);
  return secrets;
}

/**
 * Where `text` (lower case) mentions `secret` (lower case) as a whole token: not inside a longer
 * run of letters and digits, so that another restaurant's "10042" is not found inside a random
 * request id or a timestamp that happens to contain those digits.
 */
export function mentionsToken(text: string, secret: string): boolean {
  const isWordChar = (char: string | undefined) => char !== undefined && /[\p{L}\p{N}]/u.test(char);
  for (let at = text.indexOf(secret); at !== -1; at = text.indexOf(secret, at + 1)) {
    if (!isWordChar(text[at - 1]) && !isWordChar(text[at + secret.length])) return true;
  }
  return false;
}

/**
 * No answer in a context shows another restaurant's texts that the request did not carry. The
 * answer's own request id (the header, echoed in a problem's `requestId`) is the server's random
 * value, not data, and is left out.
 */
export function checkNoReveal(
  engine: Engine,
  context: string,
  req: WireRequest,
  res: WireResponse,
) {
  let carried = Object.values(req.headers).join('\n');
  try {
    carried += `\n${decodeURIComponent(req.path)}`;
  } catch {
    carried += `\n${req.path}`;
  }
  carried = carried.toLowerCase();
  const requestId = res.headers['x-request-id'];
  let said = res.text.toLowerCase();
  if (typeof requestId === 'string' && requestId !== '') {
    said = said.replaceAll(requestId.toLowerCase(), '');
  }
  for (const secret of secretsFor(engine, context.toLowerCase())) {
    const lower = secret.toLowerCase();
    if (!carried.includes(lower) && mentionsToken(said, lower)) {
      fail(
        'no-reveal',
        `the answer mentions ${JSON.stringify(secret)} of another restaurant: ${show(req, res)}`,
      );
    }
  }
}

/** Sends a call, checks the answer against the model, and updates the knowledge. */
export async function perform(
  engine: Engine,
  call: Call,
  { noReveal = true }: { readonly noReveal?: boolean } = {},
): Promise<WireResponse> {
  const req = await toWire(engine, call);
  const expected = expectedAnswer(engine, engine.knowledge, call);
  const res = await engine.client.send(req);
  try {
    checkAnswer(engine, engine.knowledge, engine.operations[call.role], expected, req, res);
    if (noReveal) checkNoReveal(engine, call.context, req, res);
  } finally {
    observe(engine, engine.knowledge, call, res);
  }
  return res;
}

/** A full grant for a record's own restaurant. */
export const fullGrant = (engine: Engine): Grant => ({
  scopes: engine.spec.scopes,
  restaurants: '*',
});

/**
 * After a refused request that named `record`: reads the record back with a call that changes
 * nothing in the state the model knows (archive of an archived employee, unarchive of an
 * unarchived one, delete of a deleted shift) and holds it to the model. A shift that is not
 * deleted has no such call: it is left to later calls.
 */
export async function probeUnchanged(engine: Engine, record: WorldRecord, after: Exchange) {
  const state = engine.knowledge.get(record.guid);
  if (state === undefined) return;
  let role: Role;
  if (record.kind === 'employee') role = state.deleted ? 'archive' : 'unarchive';
  else if (state.deleted) role = 'deleteShift';
  else return;
  try {
    await perform(engine, {
      role,
      context: record.restaurant,
      grant: fullGrant(engine),
      id: record.guid,
    });
  } catch (error) {
    if (error instanceof Violation && error.rule !== 'target-available') {
      fail(
        'unchanged-by-refusal',
        `after ${after.request.method} ${after.request.path} (answered ${after.response.status}), ${record.kind} ${record.guid} is not as before: ${error.message}`,
      );
    }
    throw error;
  }
}
