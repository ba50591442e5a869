// The oracle: the answer the contract gives to a call in the state the kit knows (the grant check,
// the state tables of docs/contract.md, isolation between restaurants), and how an answer, right
// or wrong, moves that knowledge.
import { jsonOf } from './answer-checks.js';
import type { Engine } from './engine.js';
import type { WireResponse } from './http-client.js';
import type { Call } from './requests.js';
import type { RuleName } from './rules.js';
import type { SpecOperation } from './spec-reader.js';
import { isValidText } from './spec-reader.js';
import { NOT_FOUND_CODE, pathParameterOf, type Role } from './state-table-operations.js';
import type { Grant } from './token-source.js';
import {
  DATE_FIELDS,
  type DateField,
  type Knowledge,
  type RecordState,
  type WorldRecord,
  type WorldRestaurant,
} from './world.js';

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

/** A grant's refusal of a request of `op` in the context restaurant `context`. */
export interface GrantRefusal {
  readonly rule: 'insufficient-scope' | 'restaurant-not-permitted';
  readonly status: 403;
  readonly code: 'INSUFFICIENT_SCOPE' | 'RESTAURANT_NOT_PERMITTED';
}

/**
 * How `grant` refuses a request of `op` in the context restaurant `context` (as the server reads
 * the header; GUIDs compared in any letter case), or undefined when it allows it. The scope is
 * checked first.
 */
export function grantRefusal(
  grant: Grant,
  op: SpecOperation,
  context: string | undefined,
): GrantRefusal | undefined {
  if (!grant.scopes.includes(op.scope)) {
    return { rule: 'insufficient-scope', status: 403, code: 'INSUFFICIENT_SCOPE' };
  }
  if (grant.restaurants === '*') return undefined;
  const wanted = context?.toLowerCase();
  return grant.restaurants.some((r) => r.toLowerCase() === wanted)
    ? undefined
    : { rule: 'restaurant-not-permitted', status: 403, code: 'RESTAURANT_NOT_PERMITTED' };
}

const problem = (status: number, code: string, rule: RuleName): Expected => ({
  kind: 'problem',
  status,
  code,
  rule,
});

const isGuid = (engine: Engine, text: string) =>
  engine.spec.validator.matches(engine.spec.schema('GuidInput'), text);

/** The records a call's role acts on. */
const poolOf = (engine: Engine, call: Call) =>
  call.role === 'deleteShift' ? engine.world.shifts : engine.world.employees;

/** Whether a call's identifier names `record` (a GUID in any case, or its external id). */
function callNames(engine: Engine, call: Call, record: WorldRecord): boolean {
  return isGuid(engine, call.id)
    ? record.guid === call.id.toLowerCase()
    : record.externalId === call.id;
}

/** The record a call names in its context restaurant, if any. */
export function recordNamed(engine: Engine, call: Call): WorldRecord | undefined {
  if (call.role === 'getRestaurant') return undefined;
  const context = call.context.toLowerCase();
  return poolOf(engine, call).find((r) => r.restaurant === context && callNames(engine, call, r));
}

/** The records of other restaurants than the context that a call names. */
export function foreignRecordsNamed(engine: Engine, call: Call): WorldRecord[] {
  if (call.role === 'getRestaurant') return [];
  const context = call.context.toLowerCase();
  return poolOf(engine, call).filter((r) => r.restaurant !== context && callNames(engine, call, r));
}

/** The call that changes nothing on a record in `state`; none for a shift not deleted. */
export function unchangingRole(record: WorldRecord, state: RecordState): Role | undefined {
  if (record.kind === 'employee') return state.deleted ? 'archive' : 'unarchive';
  return state.deleted ? 'deleteShift' : undefined;
}

/** The answer the contract gives to `call` in the state `knowledge` describes. */
export function expectedAnswer(engine: Engine, knowledge: Knowledge, call: Call): Expected {
  const op = engine.operations[call.role];
  const refusal = grantRefusal(call.grant, op, call.context);
  if (refusal !== undefined) return problem(refusal.status, refusal.code, refusal.rule);
  const context = call.context.toLowerCase();
  if (call.role === 'getRestaurant') {
    const named = isGuid(engine, call.id)
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
    const foreign = foreignRecordsNamed(engine, call).length > 0;
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
  ): Expected => ({ kind: 'record', record: own, transition, rule });
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

/** Brings the knowledge in line with what an answer shows, right or wrong. */
export function observe(engine: Engine, knowledge: Knowledge, call: Call, res: WireResponse): void {
  const body = jsonOf(res);
  if (res.status === 200 && body !== null && typeof body === 'object') {
    const { guid, deleted } = body as { guid?: unknown; deleted?: unknown };
    const record = typeof guid === 'string' ? engine.world.byGuid.get(guid) : undefined;
    if (record !== undefined && typeof deleted === 'boolean') {
      const dates: Partial<Record<DateField, string>> = {};
      for (const name of DATE_FIELDS) {
        const value = (body as Partial<Record<DateField, unknown>>)[name];
        if (typeof value === 'string') dates[name] = value;
      }
      knowledge.set(record.guid, { deleted, dates });
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
