// The target's records held to the seed. The kit follows the changes it makes from the seed's
// state, so a record changed before (by hand, by an earlier run, by a reset that does not put the
// seed back) would otherwise show as a broken rule of the contract. Two kinds of answers stop the
// run instead, with TargetNotSeeded:
// - any answer that shows a record the kit has not seen since it took the seed's state, archived
//   or deleted unlike the seed, or with other dates than the seed states, all of them set before
//   the kit's first request since (so no request of the kit set them);
// - an answer to a call the kit sends to look at a record first (seed-start.ts), one that changes
//   nothing in the seed's state, that the seed's state does not give and the other state does,
//   when the same look sent again is answered as the contract says.
import { Answer, jsonOf } from './answer-checks.js';
import { changeTimeOf } from './change-time.js';
import { CoverageTally } from './coverage.js';
import type { Engine } from './engine.js';
import { checkExpected } from './expected-answer-checks.js';
import type { WireRequest, WireResponse } from './http-client.js';
import { changeAnswerOf, describeAnswer } from './record-model.js';
import type { Call } from './requests.js';
import { Violation } from './rules.js';
import { expectedAnswer } from './state-oracle.js';
import type { Role } from './state-table-operations.js';
import type { Knowledge, WorldRecord } from './world.js';

/** The record a {@link TargetNotSeeded} names. */
export interface NotSeededRecord {
  readonly kind: 'employee' | 'shift';
  readonly guid: string;
  readonly externalId?: string;
}

/**
 * The run stopped: a record of the target is not as the seed says, before the kit changed it. The
 * target was not freshly seeded (or, for a target the kit resets, its reset or factory does not
 * put the seed back). This is no contract violation: the kit follows the changes it makes from
 * the seed's state, and cannot test a target that does not start there. `checkApiContract` throws
 * it; the command exits 3.
 *
 * @example
 * ```ts
 * try {
 *   await checkApiContract(options);
 * } catch (error) {
 *   if (!(error instanceof TargetNotSeeded)) throw error;
 *   console.error(`${error.message} (seed the target afresh, then run the kit once)`);
 * }
 * ```
 */
export class TargetNotSeeded extends Error {
  override readonly name = 'TargetNotSeeded';
  /**
   * @param record - the record that differs
   * @param difference - what differs, and the answer that showed it
   * @param afterReset - whether the kit had reset the target itself (`{ factory }`, `{ handler, reset }`)
   */
  constructor(
    readonly record: NotSeededRecord,
    readonly difference: string,
    afterReset: boolean,
  ) {
    const external = record.externalId === undefined ? '' : ` (${record.externalId})`;
    const question = afterReset
      ? 'does the target’s reset (or factory) put the seed back?'
      : 'was the target freshly seeded?';
    super(`the target's ${record.kind} ${record.guid}${external} ${difference}: ${question}`);
  }
}

/** Where the kit last took the seed's state for the target's, and what it found out since. */
export class SeedCheck {
  /** Whether the kit had reset the target there (else: the start of a run on a live target). */
  afterReset = false;
  /**
   * The earliest, by the target's clock, that the kit's first request since was sent: no date
   * before it was set by the kit.
   */
  since: number | undefined;
  /** Whether the run's first look at the records is still to come (seed-start.ts). */
  lookDue = false;
  /** Whether the records were looked at after a reset that followed the kit's requests. */
  resetLooked = false;
  /** The record found not as the seed says: the run stops, every property after it at once. */
  stopped: TargetNotSeeded | undefined;

  /** The kit takes the seed's state for the target's (again). */
  restart(afterReset: boolean): void {
    this.afterReset = afterReset;
    this.since = undefined;
  }

  /** Keeps the stop and returns it, to be thrown. */
  stop(record: WorldRecord, difference: string): TargetNotSeeded {
    const { kind, guid, externalId } = record;
    const named = externalId === undefined ? { kind, guid } : { kind, guid, externalId };
    this.stopped = new TargetNotSeeded(named, difference, this.afterReset);
    return this.stopped;
  }
}

/** A record's state in a word: archived or active (an employee), deleted or active (a shift). */
const stateWord = (record: WorldRecord, deleted: boolean) =>
  deleted ? (record.kind === 'employee' ? 'archived' : 'deleted') : 'active';

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * Holds an answer to the seed where it shows a record the kit has not seen since it took the
 * seed's state for the target's: archived or deleted, with every date from before the kit's first
 * request since, where the seed has it active or states other dates. Throws TargetNotSeeded.
 */
export function checkSighting(engine: Engine, res: WireResponse): void {
  const check = engine.seedCheck;
  check.since ??= changeTimeOf(res).earliest;
  const { since } = check;
  if (res.status !== 200) return;
  const body = jsonOf(res) as Readonly<Record<string, unknown>> | null | undefined;
  if (body === null || typeof body !== 'object' || body.deleted !== true) return;
  const record = typeof body.guid === 'string' ? engine.world.byGuid.get(body.guid) : undefined;
  if (record === undefined || engine.knowledge.get(record.guid)?.fromSeed !== true) return;
  const shown = { modifiedDate: text(body.modifiedDate), deletedDate: text(body.deletedDate) };
  const before = (date: string | undefined) => date !== undefined && Date.parse(date) < since;
  if (!before(shown.modifiedDate) || !before(shown.deletedDate)) return;
  const when = `before the kit's first request (sent at or after ${new Date(since).toISOString()} by the target's clock)`;
  const dates = `modifiedDate ${shown.modifiedDate}, deletedDate ${shown.deletedDate}`;
  if (!record.seedDeleted) {
    const word = stateWord(record, true);
    throw check.stop(record, `is not active, as the seed says: it is ${word} (${dates}), ${when}`);
  }
  const differing = (['modifiedDate', 'deletedDate'] as const).filter(
    (name) => record.seedDates[name] !== undefined && record.seedDates[name] !== shown[name],
  );
  if (differing.length === 0) return;
  const seed = differing.map((name) => `${name} ${record.seedDates[name]}`).join(', ');
  throw check.stop(record, `has other dates than the seed's (${seed}): ${dates}, ${when}`);
}

/**
 * Whether the contract gives `res` to `call` in the state `knowledge` describes: the answer held
 * to the oracle's on its own, counted in no coverage.
 */
export function gives(
  engine: Engine,
  knowledge: Knowledge,
  call: Call,
  req: WireRequest,
  res: WireResponse,
): boolean {
  const answer = new Answer(
    { spec: engine.spec, coverage: new CoverageTally(engine.world, engine.operations) },
    req,
    res,
  );
  try {
    checkExpected(
      answer,
      engine.operations[call.role],
      expectedAnswer(engine, knowledge, call),
      knowledge,
    );
    return true;
  } catch (error) {
    if (error instanceof Violation) return false;
    throw error;
  }
}

const GERUNDS: Readonly<Record<Role, string>> = {
  unarchive: 'unarchiving',
  archive: 'archiving',
  deleteShift: 'deleting',
  getRestaurant: 'reading',
};

/**
 * What the answer to a look at `record` (a call that changes nothing in the seed's state) shows
 * of a target not as the seed says: undefined when the seed's state gives it, or when the other
 * state does not either (a broken rule, for the properties to find); else the difference, to be
 * confirmed by looking again.
 */
export function lookFinding(
  engine: Engine,
  record: WorldRecord,
  call: Call,
  req: WireRequest,
  res: WireResponse,
): string | undefined {
  if (gives(engine, engine.knowledge, call, req, res)) return undefined;
  const { createdDate } = record.seedDates;
  const other = new Map(engine.knowledge).set(record.guid, {
    deleted: !record.seedDeleted,
    dates: createdDate === undefined ? {} : { createdDate },
  });
  if (!gives(engine, other, call, req, res)) return undefined;
  const word = stateWord(record, record.seedDeleted);
  const body = jsonOf(res);
  const said = changeAnswerOf(
    res.status,
    body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {},
  );
  const article = /^[aeiou]/.test(word) ? 'an' : 'a';
  // An archived record that answers a look archived, with other dates, may have been archived
  // again since, or just now: the seed's dates say what differs.
  const stated = (['modifiedDate', 'deletedDate'] as const)
    .filter((name) => record.seedDates[name] !== undefined)
    .map((name) => `${name} ${record.seedDates[name]}`);
  const seed =
    record.seedDeleted && stated.length > 0
      ? `${word} as the seed says (${stated.join(', ')})`
      : `${word}, as the seed says`;
  return `is not ${seed}: ${GERUNDS[call.role]} it, which changes nothing on ${article} ${word} ${record.kind}, answered ${describeAnswer(said)}`;
}
