// Runs one named property with fast-check and turns its outcome into a result: passed, or the
// rule broken, the shrunk counterexample, the RNG seed and path, and the curl commands that replay
// the failing run (with, against a live target, the calls that bring a freshly seeded target to
// the state the run started from).
import fc from 'fast-check';
import {
  cloneKnowledge,
  type Engine,
  fullGrant,
  type Knowledge,
  type Role,
  seedKnowledge,
  toWire,
} from './contract-model.js';
import { type Exchange, TargetUnavailable, toCurl } from './http-client.js';
import { RULES, type RuleName, Violation } from './response-checks.js';

/** The four groups of properties (`--only`). */
export const GROUPS = ['stateless', 'stateful', 'auth', 'isolation'] as const;
/** One of the {@link GROUPS}. */
export type PropertyGroup = (typeof GROUPS)[number];

/** A fast-check property of any arguments. */
export type ContractProperty = fc.IAsyncProperty<[unknown]>;

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
  /** The property; its predicate calls {@link beginRun} first. */
  build(engine: Engine): ContractProperty;
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

interface FailedRun {
  readonly transcript: readonly Exchange[];
  readonly runStart: Knowledge;
}

/** The state of the run being executed, for the replay of a failure. */
let currentFailure: FailedRun | undefined;

/**
 * Starts a run: a new transcript; with an in-process factory, a fresh app and the seed's state.
 * `fresh: false` keeps the target as it is (the knowledge follows it).
 */
export async function beginRun(engine: Engine, { fresh }: { readonly fresh: boolean }) {
  engine.client.startRun();
  if (fresh && engine.fresh !== undefined) {
    await engine.fresh();
    engine.knowledge = seedKnowledge(engine.world);
  }
  engine.runStart = cloneKnowledge(engine.knowledge);
}

/** The predicate of a property, wrapped: a failing run's transcript is kept for the replay. */
export function recorded<T extends unknown[]>(
  engine: Engine,
  predicate: (...args: T) => Promise<void>,
): (...args: T) => Promise<void> {
  return async (...args) => {
    if (unavailable !== undefined) throw unavailable;
    try {
      await predicate(...args);
    } catch (error) {
      if (error instanceof TargetUnavailable) unavailable = error;
      currentFailure = { transcript: [...engine.client.transcript], runStart: engine.runStart };
      throw error;
    }
  };
}

let unavailable: TargetUnavailable | undefined;
const capturedFailure = () => currentFailure;

/** Calls that take a freshly seeded target to the state a run started from (its records only). */
async function setupCalls(engine: Engine, failure: FailedRun): Promise<string[]> {
  const named = failure.transcript
    .map((exchange) => {
      try {
        return decodeURIComponent(exchange.request.path).toLowerCase();
      } catch {
        return exchange.request.path.toLowerCase();
      }
    })
    .join('\n');
  const lines: string[] = [];
  for (const record of [...engine.world.employees, ...engine.world.shifts]) {
    const state = failure.runStart.get(record.guid);
    if (state === undefined || state.deleted === record.seedDeleted) continue;
    const mentioned =
      named.includes(record.guid) ||
      (record.externalId !== undefined && named.includes(record.externalId.toLowerCase()));
    if (!mentioned) continue;
    const role: Role =
      record.kind === 'shift' ? 'deleteShift' : state.deleted ? 'archive' : 'unarchive';
    const req = await toWire(engine, {
      role,
      context: record.restaurant,
      grant: fullGrant(engine),
      id: record.guid,
    });
    lines.push(toCurl(engine.client, req));
  }
  return lines;
}

const outcomeOf = (exchange: Exchange) => {
  const code = /"code"\s*:\s*"([A-Z_]+)"/.exec(exchange.response.text)?.[1];
  return `# -> ${exchange.response.status}${code === undefined ? '' : ` ${code}`}`;
};

export interface RunSettings {
  readonly runs: number;
  readonly seed: number;
}

/** Runs `definition` and reports its outcome. */
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
  currentFailure = undefined;
  unavailable = undefined;
  const numRuns = definition.runs?.(settings.runs) ?? settings.runs;
  const details = await fc.check(definition.build(engine), { numRuns, seed: settings.seed });
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
  const failure: FailedRun | undefined = capturedFailure();
  const replay: string[] = [];
  if (failure !== undefined && rule !== 'target-available') {
    const setup = engine.fresh === undefined ? await setupCalls(engine, failure) : [];
    if (setup.length > 0) {
      replay.push('# Bring a freshly seeded target to the state the failing run started from:');
      replay.push(...setup);
      replay.push('# The failing run:');
    }
    for (const exchange of failure.transcript) {
      replay.push(`${toCurl(engine.client, exchange.request)}  ${outcomeOf(exchange)}`);
    }
  }
  return {
    ...common,
    status: 'failed',
    rule,
    ruleText: rule === 'error' ? 'the property ran to its end' : RULES[rule],
    message:
      error instanceof Violation
        ? error.detail
        : error instanceof Error
          ? error.message
          : String(error),
    counterexample:
      details.counterexample === null ? undefined : fc.stringify(details.counterexample),
    seed: details.seed,
    ...(details.counterexamplePath === null ? {} : { path: details.counterexamplePath }),
    shrinks: details.numShrinks,
    replay,
  } as PropertyResult;
}
