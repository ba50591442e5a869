// Calls of the state tables, sent and held to the oracle: every answer is compared with the one
// the model expects, checked for another restaurant's texts, and moves the knowledge; after a
// refused request, the record it named is read back to show that nothing changed.
import { type Answer, jsonOf } from './answer-checks.js';
import { type Engine, send } from './engine.js';
import { checkExpected } from './expected-answer-checks.js';
import type { Exchange, WireRequest, WireResponse } from './http-client.js';
import { checkNoReveal } from './no-reveal.js';
import { type Call, callToWire } from './requests.js';
import { Violation } from './rules.js';
import { expectedAnswer, observe, unchangingRole } from './state-oracle.js';
import type { Role } from './state-table-operations.js';
import type { Grant } from './token-source.js';
import type { RecordState, WorldRecord } from './world.js';

/** A grant of every scope for every restaurant. */
export const fullGrant = (engine: Engine): Grant => ({
  scopes: engine.spec.scopes,
  restaurants: '*',
});

/** Sends a call, checks the answer against the model, and updates the knowledge. */
export async function perform(engine: Engine, call: Call): Promise<Answer> {
  return sendCall(engine, call, await callToWire(engine, call));
}

/** How {@link sendCall} holds an answer. */
interface CallChecks {
  /** Hold the answer to the no-reveal rule too. @default true */
  readonly noReveal?: boolean;
  /** Count the call among the property's changes (a read-back is not one of its calls). @default true */
  readonly counted?: boolean;
  /** Checks before the model's (a property's own rule, more precise). */
  readonly first?: (answer: Answer) => void;
}

/**
 * Sends `req`, a wire form of `call` (the kit's own, or a generated draft's), holds the answer to
 * the one the model expects (and to the no-reveal rule), counts a call that reached a record (and
 * whether it changed it), and updates the knowledge with what the answer shows, right or wrong.
 */
export async function sendCall(
  engine: Engine,
  call: Call,
  req: WireRequest,
  { noReveal = true, counted = true, first }: CallChecks = {},
): Promise<Answer> {
  const op = engine.operations[call.role];
  const expected = expectedAnswer(engine, engine.knowledge, call);
  const answer = await send(engine, req, op);
  try {
    first?.(answer);
    checkExpected(answer, op, expected, engine.knowledge);
    if (noReveal) checkNoReveal(engine, call.context, answer);
    if (counted && expected.kind === 'record' && call.role !== 'getRestaurant') {
      engine.coverage.reachedRecord(call.role, expected.transition !== 'none');
    }
  } finally {
    observe(engine, engine.knowledge, call, answer.response);
  }
  return answer;
}

/**
 * What a read-back's answer shows was written since `before`: an unarchive that succeeded (the
 * employee was archived), `deleted`, or `modifiedDate` when the kit knew it (every change sets
 * it). Any other difference is a fault of the record as the target keeps or answers it, which its
 * own rule names.
 */
function writeShown(role: Role, response: WireResponse, before: RecordState): string | undefined {
  if (response.status !== 200) return undefined;
  if (role === 'unarchive') return 'unarchive answered 200: the employee was archived';
  const body = jsonOf(response);
  if (body === null || typeof body !== 'object') return undefined;
  const now = body as { deleted?: unknown; modifiedDate?: unknown };
  const changes: string[] = [];
  if (now.deleted !== before.deleted) {
    changes.push(`deleted is ${String(now.deleted)}, was ${String(before.deleted)}`);
  }
  const was = before.dates.modifiedDate;
  if (was !== undefined && now.modifiedDate !== was) {
    changes.push(`modifiedDate is ${String(now.modifiedDate)}, was ${was}`);
  }
  return changes.length === 0 ? undefined : changes.join(', ');
}

/**
 * After a refused request that named `record`: reads the record back with a call that changes
 * nothing in the state the model knows (archive of an archived employee, unarchive of an
 * unarchived one, delete of a deleted shift) and holds it to the model. A shift that is not
 * deleted has no such call: it is left to later calls. A read-back that shows a write (see
 * `writeShown`) breaks `unchanged-by-refusal`; one that breaks a rule without showing a write
 * keeps that rule (the record is wrong whatever the refused request did), marked as found by
 * reading back.
 */
export async function probeUnchanged(engine: Engine, record: WorldRecord, after: Exchange) {
  const state = engine.knowledge.get(record.guid);
  if (state === undefined) return;
  const role = unchangingRole(record, state);
  if (role === undefined) return;
  const before: RecordState = { deleted: state.deleted, dates: { ...state.dates } };
  engine.coverage.checked('unchanged-by-refusal');
  const call: Call = {
    role,
    context: record.restaurant,
    grant: fullGrant(engine),
    id: record.guid,
  };
  try {
    await sendCall(engine, call, await callToWire(engine, call), { counted: false });
  } catch (error) {
    if (!(error instanceof Violation) || error.rule === 'target-available') throw error;
    const read = engine.client.transcript.at(-1);
    const where = `reading ${record.kind} ${record.guid} back after ${after.request.method} ${after.request.path} (answered ${after.response.status})`;
    const change = read === undefined ? undefined : writeShown(role, read.response, before);
    if (change !== undefined) {
      throw new Violation('unchanged-by-refusal', `${where}: ${change}; ${error.detail}`);
    }
    throw new Violation(error.rule, `${where}: ${error.detail}`, { readBack: true });
  }
}
