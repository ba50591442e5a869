// Runs one named property with fast-check and turns its outcome into a result: passed, or the
// rule broken, the shrunk counterexample, the RNG seed and path, and the curl commands that replay
// the failing run. What a property's runs leave behind (the failing run's transcript, a target
// that stopped answering) belongs to that property's trial, never to the module: two runs of the
// kit in one process are independent.
import fc from 'fast-check';
import type { Engine } from './engine.js';
import { type FailedRun, replayOf } from './failure-replay.js';
import { TargetUnavailable } from './http-client.js';
import { RULES, type RuleName, Violation } from './rules.js';
import { cloneKnowledge, seedKnowledge } from './world.js';

/** The four groups of properties (`--only`). */
export const GROUPS = ['stateless', 'stateful', 'auth', 'isolation'] as const;
/** One of the {@link GROUPS}. */
export type PropertyGroup = (typeof GROUPS)[number];

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
  readonly group: PropertyGroup;
  readonly summary: string;
  readonly status: 'passed' | 'failed' | 'not-applicable';
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
  /** Failed: the minimal counterexample as fast-check prints it. */
  readonly counterexample?: string;
  /** Failed: fast-check's seed and path of the counterexample. */
  readonly seed?: number;
  readonly path?: string;
  readonly shrinks?: number;
  /** Failed: shell commands that replay the failing run. */
  readonly replay?: readonly string[];
}

/** One property being checked against one engine: what its runs leave for the result. */
export class Trial {
  /** The last failing run (fast-check ends on the shrunk one). */
  failure: FailedRun | undefined;
  /** Set once the target stops answering: the remaining runs fail at once. */
  private unavailable: TargetUnavailable | undefined;

  constructor(readonly engine: Engine) {}

  /**
   * The predicate of a property, wrapped: each run starts a new transcript and, with `fresh` and
   * an in-process target that can be reset, a freshly seeded app (`fresh: false` keeps the target
   * as it is: the knowledge follows it); a failing run's transcript is kept for the replay.
   */
  predicate<T extends unknown[]>(
    { fresh }: { readonly fresh: boolean },
    body: (...args: T) => Promise<void>,
  ): (...args: T) => Promise<void> {
    const { engine } = this;
    return async (...args) => {
      if (this.unavailable !== undefined) throw this.unavailable;
      engine.client.startRun();
      if (fresh && engine.fresh !== undefined) {
        await engine.fresh();
        engine.knowledge = seedKnowledge(engine.world);
      }
      engine.runStart = cloneKnowledge(engine.knowledge);
      try {
        await body(...args);
      } catch (error) {
        if (error instanceof TargetUnavailable) this.unavailable = error;
        this.failure = { transcript: [...engine.client.transcript], runStart: engine.runStart };
        throw error;
      }
    };
  }
}

export interface RunSettings {
  readonly runs: number;
  readonly seed: number;
}

const messageOf = (error: unknown) =>
  error instanceof Violation
    ? error.detail
    : error instanceof Error
      ? error.message
      : String(error);

/** Runs `definition` against `engine` and reports its outcome. */
export async function runProperty(
  engine: Engine,
  definition: PropertyDefinition,
  settings: RunSettings,
): Promise<PropertyResult> {
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
  const trial = new Trial(engine);
  const numRuns = definition.runs?.(settings.runs) ?? settings.runs;
  const details = await fc.check(definition.build(trial), { numRuns, seed: settings.seed });
  const common = {
    ...base,
    runs: details.numRuns,
    requests: engine.client.requests - requestsBefore,
    durationMs: Date.now() - started,
  };
  if (!details.failed) return { ...common, status: 'passed' };
  const error = details.errorInstance;
  const rule: RuleName | 'error' =
    error instanceof Violation
      ? error.rule
      : error instanceof TargetUnavailable
        ? 'target-available'
        : 'error';
  const replay =
    trial.failure !== undefined && rule !== 'target-available'
      ? await replayOf(engine, trial.failure)
      : [];
  return {
    ...common,
    status: 'failed',
    rule,
    ruleText: rule === 'error' ? 'the property ran to its end' : RULES[rule],
    message: messageOf(error),
    ...(details.counterexample === null
      ? {}
      : { counterexample: fc.stringify(details.counterexample) }),
    seed: details.seed,
    ...(details.counterexamplePath === null ? {} : { path: details.counterexamplePath }),
    shrinks: details.numShrinks,
    replay,
  };
}
