// Runs one named property with fast-check and turns its outcome into a result: passed, or the
// rule broken, the shrunk counterexample, the RNG seed and path, and the curl commands that replay
// the failing run. Shrinking has a time limit: past it, the smallest failing case found so far is
// the one reported. The counterexample is then run once more: a failure it does not reproduce is
// still a failure (its fault may depend on what the target went through), marked so. A record
// found not as the seed says (TargetNotSeeded) is no failure: it ends the property at once, and
// `runProperty` throws it, as it does for every property after it. What a property's runs leave
// behind (the failing run's transcript, a target that stopped answering, the shrinking's
// deadline) belongs to that property's trial, never to the module: two runs of the kit in one
// process are independent.
import fc from 'fast-check';
import type { Engine } from './engine.js';
import { type FailedRun, replayOf, restoreRunStart } from './failure-replay.js';
import { TargetUnavailable } from './http-client.js';
import type { PropertyGroup, ResultGroup } from './property-groups.js';
import { type RaceReport, RaceViolation } from './race-report.js';
import { RULES, type RuleName, Violation } from './rules.js';
import { lookIfDue, reseed } from './seed-start.js';
import { lookAgainAfterUnanswered } from './unanswered-calls.js';
import { cloneKnowledge } from './world.js';

/** A fast-check property over a tuple of generated arguments. */
export type ContractProperty = fc.IAsyncProperty<unknown[]>;

/** One property the kit checks. */
export interface PropertyDefinition {
  /** Such as `stateful.state-tables` or `stateless.getRestaurant.valid-requests`. */
  readonly name: string;
  readonly group: PropertyGroup;
  /** What it checks, for the report. */
  readonly summary: string;
  /** Why it cannot run against this target (no second restaurant, no key to forge with). */
  readonly notApplicable?: string;
  /** Runs of this property for a `runs` setting. */
  readonly runs?: (runs: number) => number;
  /** The property, its predicate wrapped by {@link Trial.predicate}. */
  build(trial: Trial): ContractProperty;
}

/** The outcome of one property. */
export interface PropertyResult {
  readonly name: string;
  readonly group: ResultGroup;
  readonly summary: string;
  /** Undecided: no run failed, and some history was too large to check within its bound. */
  readonly status: 'passed' | 'failed' | 'not-applicable' | 'undecided';
  /** Runs made (shrinking excluded). */
  readonly runs: number;
  /** Requests this property sent, shrinking included. */
  readonly requests: number;
  readonly durationMs: number;
  /** Failed: the rule broken. */
  readonly rule?: RuleName | 'error';
  readonly ruleText?: string;
  /** Failed: what went wrong; not applicable: why. */
  readonly message?: string;
  /**
   * Failed: the broken rule was found by reading a record back after a refused request, not in
   * the answer to a request of the counterexample itself.
   */
  readonly readBack?: boolean;
  /** Failed: the minimal counterexample as fast-check prints it. */
  readonly counterexample?: string;
  /** Failed: fast-check's seed and path of the counterexample. */
  readonly seed?: number;
  readonly path?: string;
  readonly shrinks?: number;
  /**
   * Failed: shrinking reached its time limit (`shrinkTimeLimitMs`); the counterexample is the
   * smallest failing case found by then.
   */
  readonly shrinkTimeLimitReached?: boolean;
  /**
   * Failed: whether the counterexample, run once more after shrinking (the target first brought
   * back to the state the failing run started from), failed again. A failure that did not is still
   * a failure: its fault depends on the target's history (what earlier requests did to it). Absent
   * when the target stopped answering.
   */
  readonly reproduced?: boolean;
  /**
   * Failed: whether that replay started from the state the failing run started from; not so on a
   * live target (it cannot be reset) when the run deleted a shift.
   */
  readonly replayFromSameState?: boolean;
  /** Failed: the rule the replay broke, when not the same. */
  readonly replayBroke?: RuleName | 'error';
  /** Failed: shell commands that replay the failing run. */
  readonly replay?: readonly string[];
  /** Failed by a race (the concurrent group): the smallest failing history. */
  readonly race?: RaceReport;
  /** Undecided: the runs whose history the checker could not decide. */
  readonly undecided?: number;
}

/** How the replay of a counterexample went. */
interface Replayed {
  /** The records the run named were as when it started (not so when a live target cannot be reset). */
  readonly fromSameState: boolean;
  /** The rule the replay broke, if it failed. */
  readonly broke: RuleName | 'error' | undefined;
}

export interface RunSettings {
  readonly runs: number;
  readonly seed: number;
  /** How long a failing property may shrink, from its first failure, in ms. */
  readonly shrinkTimeLimitMs: number;
}

/** The time limit of a failing property's shrinking when none is given, in ms. */
export const DEFAULT_SHRINK_TIME_LIMIT_MS = 10_000;

/** fast-check runs per property when none are given. */
export const DEFAULT_RUNS = 100;

const ruleOf = (error: unknown): RuleName | 'error' =>
  error instanceof Violation
    ? error.rule
    : error instanceof TargetUnavailable
      ? 'target-available'
      : 'error';

const messageOf = (error: unknown) =>
  error instanceof Violation
    ? error.detail
    : error instanceof Error
      ? error.message
      : String(error);

/** One property being checked against one engine: what its runs leave for the result. */
export class Trial {
  /** The last failing run (fast-check ends on the shrunk one). */
  failure: FailedRun | undefined;
  /** Set when a run starts past the shrinking's deadline: shrinking ended there. */
  shrinkTimeLimitReached = false;
  /** Runs whose history the linearizability checker could not decide within its bound. */
  undecided = 0;
  /** Set once the target stops answering: the property ends on the run that met it. */
  private unavailable: TargetUnavailable | undefined;
  /** The rule the first failing run broke: a run that shrinking finds failing another way passes. */
  private failedRule: RuleName | 'error' | undefined;
  /** When shrinking must end: the first failure's time and the time limit. */
  private shrinkDeadline: number | undefined;
  /** While the counterexample is run again: no deadline, and its failure is not kept. */
  private replaying = false;

  /**
   * @param engine - the run of the kit
   * @param shrinkTimeLimitMs - how long shrinking may go on after the first failure
   * @param property - the property's name, which its runs' events are found in
   */
  constructor(
    readonly engine: Engine,
    private readonly shrinkTimeLimitMs: number,
    private readonly property = '',
  ) {}

  /** Whether a run is a retry of a failure (shrinking, or the replay): a race may not recur. */
  get retrying(): boolean {
    return this.shrinkDeadline !== undefined || this.replaying;
  }

  /**
   * The predicate of a property, wrapped: each run starts a new transcript and, with `fresh` and
   * an in-process target that can be reset, a freshly seeded app (`fresh: false` keeps the target
   * as it is: the knowledge follows it), after the run's first look at the records when it is due;
   * a failing run's transcript is kept for the replay. When the kit checks events, the run's calls
   * are held to those that came by its end (once the property failed, to those due, or a short
   * wait): a broken rule of its events fails it. Once a record was found not as the seed says, the property ends.
   */
  predicate<T extends unknown[]>(
    { fresh }: { readonly fresh: boolean },
    body: (...args: T) => Promise<void>,
  ): (...args: T) => Promise<void> {
    const { engine } = this;
    return async (...args) => {
      // fast-check ends the property on an interrupting precondition failure, and reports the
      // last failing case: the run the target stopped answering in, not a shrunk stranger.
      if (this.unavailable !== undefined) throw new fc.PreconditionFailure(true);
      // fast-check ends the property on an interrupting precondition failure; runProperty throws
      // the stop.
      if (engine.seedCheck.stopped !== undefined) throw new fc.PreconditionFailure(true);
      if (
        !this.replaying &&
        this.shrinkDeadline !== undefined &&
        Date.now() >= this.shrinkDeadline
      ) {
        // fast-check ends the property on an interrupting precondition failure, and reports the
        // last failing case: the smallest found so far.
        this.shrinkTimeLimitReached = true;
        throw new fc.PreconditionFailure(true);
      }
      engine.client.startRun();
      engine.indeterminate.length = 0;
      try {
        if (fresh) await reseed(engine);
        await lookIfDue(engine);
        // The run's transcript starts here: a look at the records is no part of the run, nor of
        // its replay.
        engine.client.startRun();
        engine.runStart = cloneKnowledge(engine.knowledge);
        engine.events?.startRun(this.property);
        await body(...args);
        // A run of one call at a time waits for its events only once its property failed (to
        // shrink on them): before, a late finding goes to the end of the run, which costs no wait
        // per run. A concurrent case's check has waited for the events it reads already.
        const found = await engine.events?.endRun({ wait: this.retrying });
        if (found !== undefined) throw new Violation(found.rule, found.message);
      } catch (thrown) {
        engine.events?.closeRun();
        const error = await this.#underFaults(thrown);
        if (fc.PreconditionFailure.isFailure(error)) throw error;
        if (error instanceof TargetUnavailable) this.unavailable = error;
        const rule = ruleOf(error);
        // Met while shrinking, a failure of another rule is no smaller case of this one.
        if (this.retrying && !this.replaying && rule !== this.failedRule) return;
        if (!this.replaying) {
          this.failedRule = rule;
          this.failure = { transcript: [...engine.client.transcript], runStart: engine.runStart };
          this.shrinkDeadline ??= Date.now() + this.shrinkTimeLimitMs;
        }
        throw error;
      }
    };
  }

  /**
   * Under `faults`, a run that a call without an answer ended is not judged: counted as
   * availability, the records its unanswered calls named looked at again, and skipped (a
   * precondition failure, never a counterexample). Any other error is given back as it is, as is
   * the target's staying gone.
   */
  async #underFaults(error: unknown): Promise<unknown> {
    const { engine } = this;
    if (!engine.faults || !(error instanceof TargetUnavailable)) return error;
    try {
      await lookAgainAfterUnanswered(engine);
    } catch (gone) {
      return gone;
    }
    engine.availability.runsNotJudged++;
    return new fc.PreconditionFailure(false);
  }

  /**
   * Runs `property` once more on `counterexample`, the target first brought back to the state
   * `failure` started from as far as it can be (without the shrinking's deadline); undefined when
   * the target stopped answering.
   */
  async replay(
    property: ContractProperty,
    counterexample: unknown[],
    failure: FailedRun,
  ): Promise<Replayed | undefined> {
    this.replaying = true;
    try {
      const fromSameState = await restoreRunStart(this.engine, failure);
      const outcome = await property.run(fc.cloneIfNeeded(counterexample));
      if (outcome === null || fc.PreconditionFailure.isFailure(outcome)) {
        return { fromSameState, broke: undefined };
      }
      return outcome.error instanceof TargetUnavailable
        ? undefined
        : { fromSameState, broke: ruleOf(outcome.error) };
    } catch (error) {
      if (error instanceof TargetUnavailable) return undefined;
      throw error;
    } finally {
      this.replaying = false;
    }
  }
}

/**
 * Runs `definition` against `engine` and reports its outcome. Throws TargetNotSeeded once a record
 * was found not as the seed says, in this property or one before it.
 */
export async function runProperty(
  engine: Engine,
  definition: PropertyDefinition,
  settings: RunSettings,
): Promise<PropertyResult> {
  if (engine.seedCheck.stopped !== undefined) throw engine.seedCheck.stopped;
  const started = Date.now();
  const requestsBefore = engine.client.requests;
  const base = { name: definition.name, group: definition.group, summary: definition.summary };
  if (definition.notApplicable !== undefined) {
    return {
      ...base,
      status: 'not-applicable',
      runs: 0,
      requests: 0,
      durationMs: 0,
      message: definition.notApplicable,
    };
  }
  const trial = new Trial(engine, settings.shrinkTimeLimitMs, definition.name);
  const numRuns = definition.runs?.(settings.runs) ?? settings.runs;
  engine.coverage.startProperty(definition.name, definition.group, numRuns);
  const property = definition.build(trial);
  const details = await fc.check(property, { numRuns, seed: settings.seed });
  if (engine.seedCheck.stopped !== undefined) throw engine.seedCheck.stopped;
  if (!details.failed) {
    if (trial.undecided === 0) engine.coverage.propertyPassed();
    return {
      ...base,
      status: trial.undecided > 0 ? 'undecided' : 'passed',
      runs: details.numRuns,
      requests: engine.client.requests - requestsBefore,
      durationMs: Date.now() - started,
      ...(trial.undecided > 0
        ? {
            undecided: trial.undecided,
            message: `${trial.undecided} histories too large to check within the checker's bound`,
          }
        : {}),
    };
  }
  const error = details.errorInstance;
  const rule = ruleOf(error);
  const failure = trial.failure;
  const replay =
    failure !== undefined && rule !== 'target-available' ? await replayOf(engine, failure) : [];
  const { counterexample } = details;
  const replayed =
    counterexample !== null && failure !== undefined && rule !== 'target-available'
      ? await trial.replay(property, counterexample, failure)
      : undefined;
  return {
    ...base,
    runs: details.numRuns,
    requests: engine.client.requests - requestsBefore,
    durationMs: Date.now() - started,
    status: 'failed',
    rule,
    ruleText: rule === 'error' ? 'the property ran to its end' : RULES[rule],
    message: messageOf(error),
    ...(error instanceof Violation && error.readBack ? { readBack: true } : {}),
    ...(counterexample === null ? {} : { counterexample: fc.stringify(counterexample) }),
    seed: details.seed,
    ...(details.counterexamplePath === null ? {} : { path: details.counterexamplePath }),
    shrinks: details.numShrinks,
    ...(trial.shrinkTimeLimitReached ? { shrinkTimeLimitReached: true } : {}),
    ...(replayed === undefined
      ? {}
      : {
          reproduced: replayed.broke !== undefined,
          replayFromSameState: replayed.fromSameState,
          ...(replayed.broke === undefined || replayed.broke === rule
            ? {}
            : { replayBroke: replayed.broke }),
        }),
    replay,
    ...(error instanceof RaceViolation ? { race: error.race } : {}),
  };
}
