// Everything the properties of one run work with (the spec, the world, the target's client,
// tokens, the knowledge of the target's state, the coverage tally, the events when the run checks
// them), and the one way they send a request: each answer counted for the operations it answers,
// held to the seed where it shows a record the kit has not seen yet, and entered with what it says
// of its events.
import { Answer, type CheckContext } from './answer-checks.js';
import { enterCall } from './call-events.js';
import type { CoverageTally } from './coverage.js';
import type { EventLedger } from './event-ledger.js';
import {
  type Connection,
  type HttpClient,
  KitHungUp,
  TargetUnavailable,
  type WireRequest,
  type WireResponse,
} from './http-client.js';
import { checkSighting, type SeedCheck } from './seed-check.js';
import type { Spec, SpecOperation } from './spec-reader.js';
import type { Role } from './state-table-operations.js';
import type { TokenSource } from './token-source.js';
import type { Knowledge, World } from './world.js';

/** One run of the kit: made by `prepareContract`, shared by nothing else. */
export interface Engine extends CheckContext {
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
  /** Where the kit last took the seed's state for the target's, and whether that was wrong. */
  readonly seedCheck: SeedCheck;
  /** Texts of other restaurants a context's answers must not show, by context restaurant. */
  readonly secrets: Map<string, readonly string[]>;
  readonly coverage: CoverageTally;
  /** The run's events, held to its calls; undefined when the run does not check events. */
  readonly events: EventLedger | undefined;
  /**
   * Whether the target is broken on purpose (`--faults`): a call that gets no answer is
   * indeterminate, counted as availability, and only safety is judged.
   */
  readonly faults: boolean;
  /** What the run counts of the target's availability. */
  readonly availability: AvailabilityTally;
  /**
   * The calls of the current run, sent one at a time, whose answer did not say whether they
   * happened (none came; under `faults`, a 503), with their operation: under `faults`, the
   * records they name are looked at again before the next run.
   */
  readonly indeterminate: { readonly req: WireRequest; readonly op: SpecOperation | undefined }[];
}

/** Calls without an answer, and runs they ended unjudged (under `faults`). */
export interface AvailabilityTally {
  /** Calls that got no answer: a dropped connection, a reset, a timeout. */
  unanswered: number;
  /** Runs of a property that such a call ended, not judged (under `faults`). */
  runsNotJudged: number;
  /** Calls of the concurrent group the kit hung up on, after sending them (no availability matter). */
  hungUp: number;
}

/**
 * Sends `req` and returns its answer, to be checked. The answer (and any 429 waited out) counts
 * for the statuses of `operations`: the request's operation, the operations of its path for a
 * method the path does not take, none for a path that names no operation. An answer that shows a
 * record changed before the kit's first request, unlike the seed, stops the run
 * (`TargetNotSeeded`).
 */
export function send(
  engine: Engine,
  req: WireRequest,
  ...operations: readonly SpecOperation[]
): Promise<Answer> {
  return sendOn(engine, engine.client, req, operations);
}

/**
 * Under `faults`, a documented 503 to a call sent one at a time does not say whether it happened:
 * held to its documented shape (its events are zero or one, as entered), and the run ends unjudged as for a call
 * without an answer (a 503 the operation does not document stays a broken `no-server-error`).
 */
function unavailableUnderFaults(
  engine: Engine,
  req: WireRequest,
  res: WireResponse,
  operations: readonly SpecOperation[],
): void {
  const documented = operations[0]?.responses.get('503');
  if (documented === undefined) return;
  new Answer(engine, req, res).matches(documented);
  engine.indeterminate.push({ req, op: operations[0] });
  throw new TargetUnavailable(
    `${req.method} ${req.path} answered 503: it may have happened or not`,
  );
}

/**
 * {@link send} on `via`, the main connection or a branch's own. Each call is entered in the run's
 * events with what its answer (or, when none came, its missing answer) says of them, unless
 * `enter` is false: a concurrent case's calls are entered by their case.
 */
export async function sendOn(
  engine: Engine,
  via: HttpClient | Connection,
  req: WireRequest,
  operations: readonly SpecOperation[],
  {
    enter = true,
    hangUpAfterMs,
  }: {
    readonly enter?: boolean;
    /** On a branch's connection: hang up that long after the request is written. */
    readonly hangUpAfterMs?: number;
  } = {},
): Promise<Answer> {
  const sentAt = performance.now();
  let res: WireResponse;
  try {
    const onAnswer = (status: number) => {
      for (const op of operations) engine.coverage.answered(op.id, status);
    };
    res = await (hangUpAfterMs === undefined || !('branch' in via)
      ? via.send(req, onAnswer)
      : via.send(req, onAnswer, hangUpAfterMs));
  } catch (error) {
    if (error instanceof KitHungUp) engine.availability.hungUp++;
    else if (error instanceof TargetUnavailable) {
      engine.coverage.checked('target-available');
      engine.availability.unanswered++;
      if (enter) {
        engine.indeterminate.push({ req, op: operations[0] });
        enterCall(engine, req, undefined, operations, { sentAt, answeredAt: undefined });
      }
    }
    throw error;
  }
  engine.coverage.checked('target-available');
  checkSighting(engine, res);
  const times = { sentAt, answeredAt: performance.now() };
  if (enter) enterCall(engine, req, res, operations, times);
  if (enter && engine.faults && res.status === 503)
    unavailableUnderFaults(engine, req, res, operations);
  return new Answer(engine, req, res);
}
