// What the events of a call sent one at a time must be, from its answer and what the kit knew of
// its record before it: a 200 that shows the record archived (deleted) or not otherwise than the
// kit knew it is a change, whose event is due; a 503 does not say whether the change happened
// (zero events or one), nor does no answer; anything else (a refusal, a no-op, a read, a path
// that names no operation) changed nothing, and emits no event. The concurrent group enters its
// calls as pending, and its case's check says (case-events.ts).
import { jsonOf } from './answer-checks.js';
import type { ChangeRole } from './change-evidence.js';
import type { Engine } from './engine.js';
import type { EventExpectation, LedgerCall } from './event-ledger.js';
import { headerOf, type WireRequest, type WireResponse } from './http-client.js';
import { onWire, type SpecOperation } from './spec-reader.js';
import { contextHeaderOf, pathParameterOf, type Role, roleOf } from './state-table-operations.js';
import type { World, WorldRecord } from './world.js';

/** The header a request's id goes in, and the answer's comes back in. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** A request's header, by name in any letter case. */
const requestHeader = (req: WireRequest, name: string): string | undefined =>
  Object.entries(req.headers).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

/** Where each operation's path names its record: the segment, and the context header. */
const pathsNamingRecords = new WeakMap<SpecOperation, { segment: number; context?: string }>();

/** The world's records by kind, restaurant and external id, made once per world. */
const byExternalIds = new WeakMap<World, Map<string, WorldRecord>>();

const externalKey = (kind: string, restaurant: string, externalId: string) =>
  `${kind}|${restaurant}|${externalId}`;

function byExternalIdOf(world: World): Map<string, WorldRecord> {
  let index = byExternalIds.get(world);
  if (index === undefined) {
    index = new Map(
      [...world.employees, ...world.shifts].flatMap((r) =>
        r.externalId === undefined ? [] : [[externalKey(r.kind, r.restaurant, r.externalId), r]],
      ),
    );
    byExternalIds.set(world, index);
  }
  return index;
}

/** The record of the seed a request of `op` names in its path, in its context restaurant. */
export function recordOfRequest(
  engine: Engine,
  op: SpecOperation,
  req: WireRequest,
): WorldRecord | undefined {
  let where = pathsNamingRecords.get(op);
  if (where === undefined) {
    const name = contextHeaderOf(op)?.name;
    where = {
      segment: op.template.split('/').indexOf(`{${pathParameterOf(op).name}}`),
      ...(name === undefined ? {} : { context: name }),
    };
    pathsNamingRecords.set(op, where);
  }
  const segment = req.path.split('?')[0]?.split('/')[where.segment];
  if (segment === undefined) return undefined;
  let id: string;
  try {
    id = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  const byGuid = engine.world.byGuid.get(id.toLowerCase());
  if (byGuid !== undefined) return byGuid;
  const context = where.context === undefined ? undefined : requestHeader(req, where.context);
  if (context === undefined) return undefined;
  const kind = op === engine.operations.deleteShift ? 'shift' : 'employee';
  return byExternalIdOf(engine.world).get(externalKey(kind, onWire(context).toLowerCase(), id));
}

/** What a call's events must be, and why. */
interface Expecting {
  readonly expectation: EventExpectation;
  readonly why: string;
  readonly record: WorldRecord | undefined;
  readonly answered: unknown;
}

/** What the answer `res` (undefined: none came) says of the events of `req`, a call of `role`. */
function expecting(
  engine: Engine,
  role: Role | undefined,
  op: SpecOperation | undefined,
  req: WireRequest,
  res: WireResponse | undefined,
): Expecting {
  const named =
    op !== undefined && role !== undefined && role !== 'getRestaurant'
      ? recordOfRequest(engine, op, req)
      : undefined;
  const none = (why: string): Expecting => ({
    expectation: 'none',
    why,
    record: named,
    answered: undefined,
  });
  if (role === undefined) return none(`a request of no operation that changes a record`);
  if (role === 'getRestaurant') return none('a read');
  if (res === undefined || res.status === 503) {
    return { expectation: 'indeterminate', why: '', record: named, answered: undefined };
  }
  if (res.status !== 200) {
    const code = (jsonOf(res) as { code?: unknown } | undefined)?.code;
    return none(`refused with ${res.status}${typeof code === 'string' ? ` ${code}` : ''}`);
  }
  const body = jsonOf(res) as { guid?: unknown; deleted?: unknown } | undefined;
  const record =
    typeof body?.guid === 'string' ? (engine.world.byGuid.get(body.guid) ?? named) : named;
  if (record === undefined) return none('answered 200 for no record of the seed');
  const before = engine.knowledge.get(record.guid)?.deleted ?? record.seedDeleted;
  if (body?.deleted !== before) {
    return { expectation: 'change', why: '', record, answered: body };
  }
  const state =
    record.kind === 'shift' ? 'deleted' : role === 'unarchive' ? 'not archived' : 'archived';
  return { ...none(`a no-op: the ${record.kind} was ${state} already`), record };
}

/**
 * Enters a call sent one at a time in the run's events, with what its answer (or its missing
 * answer) says its events must be; a call of a concurrent case is entered `pending`, for its case
 * to settle, and one sent while its record's state is unknown `indeterminate`. Nothing when the run
 * does not check events.
 */
export function enterCall(
  engine: Engine,
  req: WireRequest,
  res: WireResponse | undefined,
  operations: readonly SpecOperation[],
  times: { readonly sentAt: number; readonly answeredAt: number | undefined },
  {
    pending = false,
    indeterminate = false,
    record,
  }: {
    readonly pending?: boolean;
    /** Whatever it answers, its events are zero or one (the kit did not know its record's state). */
    readonly indeterminate?: boolean;
    readonly record?: WorldRecord;
  } = {},
): LedgerCall | undefined {
  const { events } = engine;
  if (events === undefined) return undefined;
  const op = operations[0];
  const role = op === undefined ? undefined : roleOf(op);
  const requestId =
    (res === undefined ? undefined : headerOf(res, REQUEST_ID_HEADER)) ??
    requestHeader(req, REQUEST_ID_HEADER);
  const expected = pending
    ? {
        expectation: 'pending' as const,
        why: '',
        record,
        answered: res?.status === 200 ? jsonOf(res) : undefined,
      }
    : indeterminate
      ? { ...expecting(engine, role, op, req, undefined), answered: undefined }
      : expecting(engine, role, op, req, res);
  return events.enter({
    requestId,
    method: req.method,
    path: req.path,
    status: res?.status,
    record: expected.record,
    role: role === undefined || role === 'getRestaurant' ? undefined : (role as ChangeRole),
    expectation: expected.expectation,
    why: expected.why,
    answered: expected.answered,
    sentAt: times.sentAt,
    answeredAt: times.answeredAt,
  });
}
