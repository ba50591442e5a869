// Under `--faults`, a call sent one at a time that got no answer may have changed its record or
// not. Before the next run, each record such a call named is looked at again, as the concurrent
// group's suffix does: an archive of an employee, a delete of a shift, both of which leave it in
// one known state whatever it was; the answer shows that state and its dates. Each look is sent
// again while it gets no answer or a 503, for at most a while; its events may be zero or one.
import { enterCall, recordOfRequest } from './call-events.js';
import { type Engine, sendOn } from './engine.js';
import { TargetUnavailable } from './http-client.js';
import { fullGrant } from './model-calls.js';
import { type Call, callToWire } from './requests.js';
import { observe } from './state-oracle.js';
import type { WorldRecord } from './world.js';

/** How long the kit tries to look at a record again before the target counts as gone, in ms. */
const LOOK_AGAIN_MS = 30_000;

/** The first wait between two tries, doubled each time up to a second, in ms. */
const FIRST_WAIT_MS = 50;

/** The records the run's unanswered calls named, each once. */
function recordsOfUnanswered(engine: Engine): WorldRecord[] {
  const records = new Map<string, WorldRecord>();
  for (const { req, op } of engine.indeterminate.splice(0)) {
    if (op === undefined || op === engine.operations.getRestaurant) continue;
    const record = recordOfRequest(engine, op, req);
    if (record !== undefined) records.set(record.guid, record);
  }
  return [...records.values()];
}

/** Looks at `record` again until an answer shows its state; throws when the target stays gone. */
async function lookAgain(engine: Engine, record: WorldRecord, until: number): Promise<void> {
  const call: Call = {
    role: record.kind === 'shift' ? 'deleteShift' : 'archive',
    context: record.restaurant,
    grant: fullGrant(engine),
    id: record.guid,
  };
  const op = engine.operations[call.role];
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, 1000)) {
    const req = await callToWire(engine, call);
    const sentAt = performance.now();
    let last: string;
    try {
      const answer = await sendOn(engine, engine.client, req, [op], { enter: false });
      const times = { sentAt, answeredAt: performance.now() };
      enterCall(engine, req, answer.response, [op], times, { indeterminate: true });
      if (answer.status !== 503) {
        answer.documented(op);
        observe(engine, engine.knowledge, call, answer.response);
        return;
      }
      last = `${req.method} ${req.path} answered 503`;
    } catch (error) {
      if (!(error instanceof TargetUnavailable)) throw error;
      enterCall(engine, req, undefined, [op], { sentAt, answeredAt: undefined });
      last = error.message;
    }
    if (Date.now() + wait > until) {
      throw new TargetUnavailable(
        `under --faults, ${record.kind} ${record.guid}, named by a call that got no answer, could not be looked at again within ${LOOK_AGAIN_MS / 1000} s: ${last}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * Brings the knowledge back in line with the target after a run that a call without an answer
 * ended: each record such a call named, looked at again.
 */
export async function lookAgainAfterUnanswered(engine: Engine): Promise<void> {
  const until = Date.now() + LOOK_AGAIN_MS;
  for (const record of recordsOfUnanswered(engine)) await lookAgain(engine, record, until);
}
