// Where the kit takes the seed's state for the target's: at the start of a run, and at each reset
// of a target it can reset (an app in process given with `reset`, or a factory). There it looks
// at the records: at the start of a run, before the first run of a property (so that the look's
// requests count in a property), and at the first reset that follows its requests (a reset that
// does not put the seed back shows only then). A look sends each record the seed has in a state
// some call leaves unchanged (an archived employee: archive; an active one: unarchive; a deleted
// shift: delete) that call, and holds the answer to the seed (seed-check.ts). A shift the seed has
// active has no such call: it is seen when first deleted.
import { type Engine, send } from './engine.js';
import { fullGrant } from './model-calls.js';
import { type Call, callToWire } from './requests.js';
import { gives, lookFinding } from './seed-check.js';
import { observe, unchangingRole } from './state-oracle.js';
import { seedKnowledge, type WorldRecord } from './world.js';

/** Sends `call`, its answer counted for its operation; the request and the answer. */
async function sendCall(engine: Engine, call: Call) {
  const req = await callToWire(engine, call);
  const answer = await send(engine, req, engine.operations[call.role]);
  return { req, res: answer.response };
}

/** The call that changes nothing on `record` in the state the kit knows it in, if there is one. */
function unchangingCall(engine: Engine, record: WorldRecord): Call | undefined {
  const state = engine.knowledge.get(record.guid);
  const role = state === undefined ? undefined : unchangingRole(record, state);
  return role === undefined
    ? undefined
    : { role, context: record.restaurant, grant: fullGrant(engine), id: record.guid };
}

/**
 * Looks at `record` with the call that changes nothing in the seed's state. An answer the seed's
 * state does not give and the other state does stops the run (TargetNotSeeded) when the look sent
 * again, in the state that answer showed, is answered as the contract says; else the answers move
 * the knowledge, as any answer does, and the properties find what is wrong with them.
 */
async function lookAt(engine: Engine, record: WorldRecord): Promise<void> {
  const look = unchangingCall(engine, record);
  if (look === undefined) return;
  const first = await sendCall(engine, look);
  const finding = lookFinding(engine, record, look, first.req, first.res);
  observe(engine, engine.knowledge, look, first.res);
  const again = finding === undefined ? undefined : unchangingCall(engine, record);
  if (finding === undefined || again === undefined) return;
  const second = await sendCall(engine, again);
  if (gives(engine, engine.knowledge, again, second.req, second.res)) {
    throw engine.seedCheck.stop(record, finding);
  }
  observe(engine, engine.knowledge, again, second.res);
}

/** Takes the seed's state for the target's: a target the kit can reset is reset first. */
async function takeSeed(engine: Engine): Promise<void> {
  if (engine.fresh !== undefined) await engine.fresh();
  engine.knowledge = seedKnowledge(engine.world);
  engine.seedCheck.restart(engine.fresh !== undefined);
}

/** Looks at every record the seed has in a state some call leaves unchanged. */
async function lookAtRecords(engine: Engine): Promise<void> {
  for (const record of [...engine.world.employees, ...engine.world.shifts]) {
    await lookAt(engine, record);
  }
}

/**
 * Starts a run from the seed: resets a target the kit can reset; the records are looked at
 * before the first run of a property ({@link lookIfDue}).
 */
export async function startFromSeed(engine: Engine): Promise<void> {
  await takeSeed(engine);
  engine.seedCheck.lookDue = true;
}

/**
 * Looks at the records when the run's first look is due (TargetNotSeeded when one is not as the
 * seed says); a look the target did not answer is due still.
 */
export async function lookIfDue(engine: Engine): Promise<void> {
  if (!engine.seedCheck.lookDue) return;
  await lookAtRecords(engine);
  engine.seedCheck.lookDue = false;
}

/**
 * Puts a fresh, seeded app behind the base URL, and the knowledge back to the seed, when the
 * target can be reset (an in-process one); a live target is left as it is. At the first reset
 * after the kit's requests reached the records, it looks at them (TargetNotSeeded when one is not
 * as the seed says).
 */
export async function reseed(engine: Engine): Promise<void> {
  if (engine.fresh === undefined) return;
  const check = engine.seedCheck;
  const reached =
    !check.resetLooked && [...engine.knowledge.values()].some((state) => !state.fromSeed);
  await takeSeed(engine);
  if (!reached) return;
  check.resetLooked = true;
  await lookAtRecords(engine);
}
