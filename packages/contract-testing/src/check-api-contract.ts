// The engine's entry point: read the spec and the seed, reach the target, run the properties one
// by one, and report what they found and what the run covered.
import { authProperties } from './auth-properties.js';
import { concurrentProperties } from './concurrent-properties.js';
import { type Coverage, CoverageTally, coverageGaps } from './coverage.js';
import type { Engine } from './engine.js';
import { EventLedger, type EventsSummary } from './event-ledger.js';
import type { EventSource } from './event-source.js';
import { finishEvents } from './events-result.js';
import { HttpClient } from './http-client.js';
import { pathProperties } from './path-properties.js';
import { GROUPS, type PropertyGroup } from './property-groups.js';
import {
  DEFAULT_RUNS,
  DEFAULT_SHRINK_TIME_LIMIT_MS,
  type PropertyDefinition,
  type PropertyResult,
  runProperty,
} from './property-runner.js';
import { writeReports } from './report-files.js';
import { SeedCheck } from './seed-check.js';
import { loadSeed, type SeedInput } from './seed-source.js';
import { startFromSeed } from './seed-start.js';
import { readSpec } from './spec-reader.js';
import { stateProperties } from './state-properties.js';
import { stateTableOperations } from './state-table-operations.js';
import { statelessProperties } from './stateless-properties.js';
import { assertContractTarget, type ContractTarget, resolveTarget } from './target.js';
import { type AuthOptions, createTokenSource } from './token-source.js';
import { buildWorld, cloneKnowledge, seedKnowledge } from './world.js';

/** Options of {@link checkApiContract}. */
export interface ContractOptions {
  /** The deployment under test: a base URL, an app, or an app factory ({@link ContractTarget}). */
  readonly target: ContractTarget;
  /**
   * Where the API is mounted within the target, when not at its root: an app that mounts the
   * router with `app.use('/api', createRouter(…))` beside routes of its own is tested under
   * `/api`. Joined after a base URL's own path. @default '' (the root)
   */
  readonly basePath?: string;
  /**
   * The seed the target was loaded with: a seed file's path, or its JSON. A live target must be
   * freshly seeded from it (the kit then follows the changes it makes itself).
   */
  readonly seed: SeedInput;
  /** How to get tokens the target accepts ({@link AuthOptions}). */
  readonly auth: AuthOptions;
  /** fast-check runs per property (a few properties take half). @default 100 */
  readonly runs?: number;
  /** The RNG seed; the same seed against a freshly seeded target sends the same requests. @default random */
  readonly rngSeed?: number;
  /**
   * How long a failing property may shrink, in ms, from its first failure. Past it, the run in
   * flight ends and the smallest failing case found so far is reported (`shrinkTimeLimitReached`).
   * 0 reports the first failing case as found. @default 10000
   */
  readonly shrinkTimeLimitMs?: number;
  /** The groups of properties to run. @default all: stateless, stateful, auth, isolation, concurrent */
  readonly only?: readonly PropertyGroup[];
  /** Requests per second at most (stay within the target's rate limits). @default no limit */
  readonly rate?: number;
  /** The longest 429s are waited out for one request. @default 30000 */
  readonly maxRateLimitWaitMs?: number;
  /**
   * Fail the run unless it covered the contract: every declared status the kit can provoke seen,
   * every rule checked, and no kind of change run too few times by the stateful or the concurrent
   * group for want of records in the seed ({@link Coverage.thinEvidence}; docs/contract-testing.md,
   * "Thin evidence"). The groups `only` leaves out may leave rules unchecked. @default false
   */
  readonly minCoverage?: boolean;
  /**
   * The deployment's events, to hold to the calls that made them: the recorder of an app in
   * process (`createEventRecorder`, whose `record` is the app's `onEvent`), the kit's webhook
   * receiver (`startWebhookReceiver`, the deployment's webhooks pointed at it), or a source of
   * your own. Without it, events are not checked, and the report says so.
   * @default none
   */
  readonly events?: EventSource;
  /**
   * How long the end of the run waits for the events still due, in ms; it ends as soon as all
   * have come. @default 10000
   */
  readonly eventsTimeoutMs?: number;
  /**
   * The target is being broken on purpose (processes killed, its database cut off): a call that
   * gets no answer (a dropped connection, a reset, a timeout), on any call, is indeterminate and
   * counted apart as availability ({@link Report.availability}); only safety is judged (the rules
   * on every answer received, linearizability, the events). Without it, a call without an answer
   * fails the run (`target-available`). @default false
   */
  readonly faults?: boolean;
  /** Called as each property finishes (the CLI prints its line). */
  readonly onResult?: (result: PropertyResult) => void;
  /**
   * Files to write the report to as well, each in the format its name says: `.html` (one
   * self-contained page to look at, a race's history drawn as a timeline), `.json`, `.xml`
   * (JUnit).
   */
  readonly report?: string | readonly string[];
}

/** What a run of the kit found. */
export interface Report {
  /** Every property held (or could not apply), none was undecided, and, when asked, the coverage is full. */
  readonly ok: boolean;
  readonly passed: number;
  readonly failed: number;
  /** Properties with histories too large to check within the checker's bound (never passed). */
  readonly undecided: number;
  readonly notApplicable: number;
  readonly results: readonly PropertyResult[];
  /** Requests sent, 429s included. */
  readonly requests: number;
  /** 429 answers the kit waited out. */
  readonly rateLimited: number;
  /**
   * How long the kit waited 429s out, in ms: the time during which some request was waiting (the
   * concurrent group's branches wait side by side, counted once).
   */
  readonly rateLimitWaitMs: number;
  /** Answers by HTTP status. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly durationMs: number;
  readonly rngSeed: number;
  readonly runs: number;
  /** The time limit of each failing property's shrinking, in ms. */
  readonly shrinkTimeLimitMs: number;
  readonly baseUrl: string;
  /** What the run covered: statuses by operation, checks by rule, declared statuses not seen. */
  readonly coverage: Coverage;
  /** With `minCoverage`: whether the coverage is full, and what it lacks. */
  readonly minCoverage?: { readonly met: boolean; readonly gaps: readonly string[] };
  /** When the run checked events: what came, counted (its findings are result `events.delivery`). */
  readonly events?: EventsSummary;
  /**
   * Calls of the concurrent group the kit hung up on after sending them, before their answer:
   * indeterminate, their suffix and events say whether each happened.
   */
  readonly hungUp: number;
  /** With `faults`: how available the target was (never a failure). */
  readonly availability?: Availability;
}

/** How available a target under faults was: counted apart, never judged. */
export interface Availability {
  /** Calls that got no answer (a dropped connection, a reset, a timeout): indeterminate. */
  readonly unanswered: number;
  /** Calls answered 503 (storage unavailable, a request timeout): indeterminate too. */
  readonly serviceUnavailable: number;
  /** Runs of the groups that send one call at a time ended by a call without an answer, not judged. */
  readonly runsNotJudged: number;
}

/** How long the end of a run waits for the events still due when no timeout is given, in ms. */
export const DEFAULT_EVENTS_TIMEOUT_MS = 10_000;

/** The engine and its properties, before any request. */
export interface PreparedContract {
  readonly engine: Engine;
  readonly properties: readonly PropertyDefinition[];
  close(): Promise<void>;
}

/** Reads the spec and the seed, reaches the target and lists the properties to run. */
export async function prepareContract(options: ContractOptions): Promise<PreparedContract> {
  assertContractTarget(options.target);
  const spec = readSpec();
  const world = buildWorld(spec, await loadSeed(options.seed));
  const target = await resolveTarget(options.target, options.basePath);
  const client = new HttpClient({
    baseUrl: target.baseUrl,
    ...(options.rate === undefined ? {} : { ratePerSecond: options.rate }),
    ...(options.maxRateLimitWaitMs === undefined
      ? {}
      : { maxRateLimitWaitMs: options.maxRateLimitWaitMs }),
  });
  const knowledge = seedKnowledge(world);
  const operations = stateTableOperations(spec);
  const coverage = new CoverageTally(world, operations);
  const events =
    options.events === undefined
      ? undefined
      : new EventLedger(
          options.events,
          { spec, coverage },
          options.eventsTimeoutMs ?? DEFAULT_EVENTS_TIMEOUT_MS,
        );
  const engine: Engine = {
    spec,
    world,
    client,
    tokens: createTokenSource(options.auth, spec.scopes),
    operations,
    fresh: target.fresh,
    knowledge,
    runStart: cloneKnowledge(knowledge),
    seedCheck: new SeedCheck(),
    secrets: new Map(),
    coverage,
    events,
    faults: options.faults ?? false,
    availability: { unanswered: 0, runsNotJudged: 0, hungUp: 0 },
    indeterminate: [],
  };
  const only = new Set(options.only ?? GROUPS);
  const all = [
    ...statelessProperties(engine),
    ...pathProperties(engine),
    ...stateProperties(engine),
    ...authProperties(engine, options.auth),
    ...concurrentProperties(engine),
  ];
  const order = (p: PropertyDefinition) => GROUPS.indexOf(p.group);
  return {
    engine,
    properties: all.filter((p) => only.has(p.group)).sort((a, b) => order(a) - order(b)),
    close: async () => {
      events?.close();
      client.close();
      await target.close();
    },
  };
}

/** The seed of the `index`th property of a run seeded `rngSeed`. */
export const propertySeed = (rngSeed: number, index: number) => (rngSeed + index * 7919) | 0;

/** A run's settings, with the defaults its options leave. */
export interface RunContractSettings {
  readonly rngSeed: number;
  readonly runs: number;
  readonly shrinkTimeLimitMs: number;
}

/** The settings of a run of `options`: theirs, or the defaults (a random RNG seed, 100 runs, 10 s). */
export const runSettingsOf = (options: ContractOptions): RunContractSettings => ({
  rngSeed: options.rngSeed ?? (Math.random() * 2 ** 31) | 0,
  runs: options.runs ?? DEFAULT_RUNS,
  shrinkTimeLimitMs: options.shrinkTimeLimitMs ?? DEFAULT_SHRINK_TIME_LIMIT_MS,
});

/**
 * Runs the prepared properties one by one, in their order, each with its seed; each result goes
 * to `onResult`. With `until`, the run ends after the first result it accepts (what came before
 * is the same as in a whole run: the mutation suite stops at a mutant's first failure).
 */
export async function runProperties(
  prepared: PreparedContract,
  settings: RunContractSettings,
  {
    onResult,
    until,
  }: {
    readonly onResult?: (result: PropertyResult) => void;
    readonly until?: (result: PropertyResult) => boolean;
  } = {},
): Promise<PropertyResult[]> {
  const results: PropertyResult[] = [];
  // A run starts from the seed: an in-process target another run used is reset first. A record
  // found not as the seed says ends the run: runProperty throws TargetNotSeeded.
  await startFromSeed(prepared.engine);
  for (const [index, definition] of prepared.properties.entries()) {
    const result = await runProperty(prepared.engine, definition, {
      runs: settings.runs,
      seed: propertySeed(settings.rngSeed, index),
      shrinkTimeLimitMs: settings.shrinkTimeLimitMs,
    });
    results.push(result);
    onResult?.(result);
    if (until?.(result)) break;
  }
  return results;
}

/**
 * Property-tests a deployment against the contract over HTTP: stateless requests generated from
 * the spec, sequences over a model of the seed's state tables, bad tokens and missing grants, and
 * isolation between restaurants. Never throws for a broken rule: the report says which.
 *
 * @param options - the target, the seed it was loaded with, how to get tokens
 * @returns the report: one result per property, with the rule broken and a replay on failure
 * @example
 * ```ts
 * const report = await checkApiContract({
 *   target: 'http://127.0.0.1:8080',
 *   seed: 'seed.json',
 *   auth: { hs256Secret: process.env.SECRET!, issuer: 'https://id.example.com/', audience: 'workforce-api' },
 * });
 * if (!report.ok) process.exitCode = 1;
 * ```
 */
export async function checkApiContract(options: ContractOptions): Promise<Report> {
  const started = Date.now();
  const settings = runSettingsOf(options);
  const { rngSeed, runs, shrinkTimeLimitMs } = settings;
  const prepared = await prepareContract(options);
  let results: PropertyResult[];
  let events: EventsSummary | undefined;
  try {
    results = await runProperties(prepared, settings, {
      ...(options.onResult === undefined ? {} : { onResult: options.onResult }),
    });
    if (prepared.engine.events !== undefined) {
      const finished = await finishEvents(prepared.engine.events);
      events = finished.summary;
      results.push(finished.result);
      options.onResult?.(finished.result);
    }
  } finally {
    await prepared.close();
  }
  const { client, spec } = prepared.engine;
  const count = (status: PropertyResult['status']) =>
    results.filter((r) => r.status === status).length;
  const coverage = prepared.engine.coverage.coverage(spec);
  const gaps = coverageGaps(coverage);
  const minCoverage = options.minCoverage ? { met: gaps.length === 0, gaps } : undefined;
  const report: Report = {
    ok: count('failed') === 0 && count('undecided') === 0 && (minCoverage?.met ?? true),
    passed: count('passed'),
    failed: count('failed'),
    undecided: count('undecided'),
    notApplicable: count('not-applicable'),
    results,
    requests: client.requests,
    rateLimited: client.rateLimited,
    rateLimitWaitMs: Math.round(client.rateLimitWaitMs),
    statuses: Object.fromEntries([...client.statuses].sort(([a], [b]) => a - b)),
    durationMs: Date.now() - started,
    rngSeed,
    runs,
    shrinkTimeLimitMs,
    baseUrl: client.baseUrl.href,
    coverage,
    ...(minCoverage === undefined ? {} : { minCoverage }),
    hungUp: prepared.engine.availability.hungUp,
    ...(events === undefined ? {} : { events }),
    ...(options.faults
      ? {
          availability: {
            unanswered: prepared.engine.availability.unanswered,
            serviceUnavailable: client.statuses.get(503) ?? 0,
            runsNotJudged: prepared.engine.availability.runsNotJudged,
          },
        }
      : {}),
  };
  if (options.report !== undefined) await writeReports(report, [options.report].flat());
  return report;
}
