// The stores in the HTTP bench (issues 21, 27 and 42): the GET and the archive/unarchive cycle of
// the reference server on PGlite and on a PostgreSQL server beside the same server on the memory
// store (the wk-express row) and the same work by hand on the PostgreSQL server (pg-plain), the
// cycle at the bench's connections and at one, with the batch
// sizes the PostgreSQL store's group commit made during the measured runs (from
// `workforce_kit_store_batch_size` in /metrics) and, on a PostgreSQL server, the statements it
// ran per request (pg_stat_statements).
import type { StatementFigure } from './database-snapshot.js';
import type { RowId } from './http-rows.js';

/**
 * The rows of the store table: the memory store first (the baseline), then PGlite, the same work by
 * hand on the PostgreSQL server (`pg-plain`), and workforce-kit on it.
 */
export const STORE_ROWS: readonly RowId[] = ['wk-express', 'wk-pglite', 'pg-plain', 'wk-postgres'];

/** The targets of issue 21: each store's cycle at least this many times the memory store's. */
const CYCLE_TARGETS: Partial<Record<RowId, number>> = { 'wk-pglite': 0.5, 'wk-postgres': 0.6 };
/** The targets of issue 27: a PostgreSQL server's GET at least 0.7× the memory store's. */
const GET_TARGETS: Partial<Record<RowId, number>> = { 'wk-postgres': 0.7 };
/** And at most one statement per GET on average, under the bench's load. */
const STATEMENTS_PER_GET_TARGETS: Partial<Record<RowId, number>> = { 'wk-postgres': 1 };
/**
 * The targets of issue 42, against the same work by hand on the same server (`pg-plain`): the
 * cycle's rate at least this many times its own, by rate and by the server's CPU per request.
 */
const HAND_WRITTEN_CYCLE_TARGETS: Partial<Record<RowId, number>> = { 'wk-postgres': 1.0 };
/** And the cycle's p99 at most this many times its own. */
const HAND_WRITTEN_P99_TARGETS: Partial<Record<RowId, number>> = { 'wk-postgres': 1.2 };

/** `workforce_kit_store_batch_size` as scraped: count, sum, and the cumulative buckets by `le`. */
export interface BatchSizes {
  readonly count: number;
  readonly sum: number;
  readonly buckets: Readonly<Record<string, number>>;
}

/** The histogram in a /metrics text, or undefined when the server has none (the memory store). */
export function parseBatchSizes(metrics: string): BatchSizes | undefined {
  const name = 'workforce_kit_store_batch_size';
  let count: number | undefined;
  let sum = 0;
  const buckets: Record<string, number> = {};
  for (const line of metrics.split('\n')) {
    if (!line.startsWith(name)) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (line.startsWith(`${name}_count `)) count = value;
    else if (line.startsWith(`${name}_sum `)) sum = value;
    else {
      const le = /^workforce_kit_store_batch_size_bucket\{le="([^"]+)"\}/.exec(line)?.[1];
      if (le !== undefined) buckets[le] = value;
    }
  }
  return count === undefined ? undefined : { count, sum, buckets };
}

/** What was counted between two scrapes (a measured run's batches). */
export function batchSizesBetween(
  before: BatchSizes | undefined,
  after: BatchSizes | undefined,
): BatchSizes | undefined {
  if (after === undefined) return undefined;
  const buckets: Record<string, number> = {};
  for (const [le, value] of Object.entries(after.buckets)) {
    buckets[le] = value - (before?.buckets[le] ?? 0);
  }
  return {
    count: after.count - (before?.count ?? 0),
    sum: after.sum - (before?.sum ?? 0),
    buckets,
  };
}

/** What the store table needs of a measured run. */
export interface StoreRun {
  readonly scenario: string;
  readonly row: RowId;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
  /** The server's CPU per request, µs (the database's not in it). */
  readonly serverCpuUs: number;
  readonly batchSizes?: BatchSizes | undefined;
  /** Statements the database ran per request (a PostgreSQL server's, from pg_stat_statements). */
  readonly statementsPerRequest?: number | undefined;
  /** Of which the shared rate limits'. */
  readonly rateLimitStatementsPerRequest?: number | undefined;
  /** The PostgreSQL server's CPU per request, µs. */
  readonly databaseCpuUs?: number | undefined;
  /** Each statement's calls and execution time per request, the most time first. */
  readonly statements?: readonly StatementFigure[] | undefined;
}

export interface StoreSummary {
  readonly row: RowId;
  readonly label: string;
  readonly get: number;
  readonly getRatio: number;
  readonly getCpuUs: number;
  readonly statementsPerGet: number | undefined;
  readonly rateLimitStatementsPerGet: number | undefined;
  readonly cycle: number;
  readonly cycleCpuUs: number;
  readonly statementsPerCycleRequest: number | undefined;
  readonly cycleRatio: number;
  /** The PostgreSQL server's CPU per GET and per cycle request, µs (a row with a database). */
  readonly getDatabaseCpuUs: number | undefined;
  readonly cycleDatabaseCpuUs: number | undefined;
  /** The cycle's statements, per request (the means of its runs), the most time first. */
  readonly cycleStatements: readonly StatementFigure[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly batches: BatchSizes | undefined;
  readonly oneConnection: number | undefined;
  readonly oneConnectionP50Ms: number | undefined;
  readonly oneConnectionMeanMs: number | undefined;
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? Number.NaN : values.reduce((a, b) => a + b, 0) / values.length;

/** Batch sizes of several runs added up. */
function added(runs: readonly (BatchSizes | undefined)[]): BatchSizes | undefined {
  const present = runs.filter((run): run is BatchSizes => run !== undefined);
  if (present.length === 0) return undefined;
  const buckets: Record<string, number> = {};
  for (const run of present) {
    for (const [le, value] of Object.entries(run.buckets)) buckets[le] = (buckets[le] ?? 0) + value;
  }
  return {
    count: present.reduce((sum, run) => sum + run.count, 0),
    sum: present.reduce((sum, run) => sum + run.sum, 0),
    buckets,
  };
}

/** The mean of a per-request figure of the database over the runs, or undefined when none had it. */
function statementsPer(
  runs: readonly StoreRun[],
  which:
    | 'statementsPerRequest'
    | 'rateLimitStatementsPerRequest'
    | 'databaseCpuUs' = 'statementsPerRequest',
): number | undefined {
  const counted = runs.flatMap((run) => {
    const value = run[which];
    return value === undefined ? [] : [value];
  });
  return counted.length === 0 ? undefined : mean(counted);
}

/** Each statement's figures, the means over the runs (a statement a run lacks counts as none). */
function statementsOf(runs: readonly StoreRun[]): StatementFigure[] {
  const counted = runs.filter((run) => run.statements !== undefined);
  const byQuery = new Map<string, { calls: number; execUs: number }>();
  for (const run of counted) {
    for (const { query, callsPerRequest, execUsPerRequest } of run.statements ?? []) {
      const sum = byQuery.get(query) ?? { calls: 0, execUs: 0 };
      sum.calls += callsPerRequest;
      sum.execUs += execUsPerRequest;
      byQuery.set(query, sum);
    }
  }
  return [...byQuery]
    .map(([query, { calls, execUs }]) => ({
      query,
      callsPerRequest: calls / counted.length,
      execUsPerRequest: execUs / counted.length,
      meanMs: execUs / calls / 1000,
    }))
    .sort((a, b) => b.execUsPerRequest - a.execUsPerRequest);
}

/**
 * Each store row's GET and cycle (means of its runs) against the memory store's, with its batch
 * sizes and statements per request; `get`, `cycle` and `oneConnection` name the scenarios (the
 * last two at the bench's connections and at one).
 */
export function summariseStores(
  runs: readonly StoreRun[],
  labels: ReadonlyMap<RowId, string>,
  scenarios: { readonly get: string; readonly cycle: string; readonly oneConnection: string },
): StoreSummary[] {
  const { get, cycle, oneConnection } = scenarios;
  const of = (scenario: string, row: RowId) =>
    runs.filter((run) => run.scenario === scenario && run.row === row);
  const rate = (measured: readonly StoreRun[]) =>
    mean(measured.map((run) => run.requestsPerSecond));
  const memory = rate(of(cycle, 'wk-express'));
  const memoryGet = rate(of(get, 'wk-express'));
  return STORE_ROWS.filter((row) => labels.has(row)).map((row) => {
    const measured = of(cycle, row);
    const gets = of(get, row);
    const single = of(oneConnection, row);
    const requestsPerSecond = rate(measured);
    return {
      row,
      label: labels.get(row) ?? row,
      get: rate(gets),
      getRatio: rate(gets) / memoryGet,
      getCpuUs: mean(gets.map((run) => run.serverCpuUs)),
      statementsPerGet: statementsPer(gets),
      rateLimitStatementsPerGet: statementsPer(gets, 'rateLimitStatementsPerRequest'),
      cycle: requestsPerSecond,
      cycleCpuUs: mean(measured.map((run) => run.serverCpuUs)),
      statementsPerCycleRequest: statementsPer(measured),
      cycleRatio: requestsPerSecond / memory,
      getDatabaseCpuUs: statementsPer(gets, 'databaseCpuUs'),
      cycleDatabaseCpuUs: statementsPer(measured, 'databaseCpuUs'),
      cycleStatements: statementsOf(measured),
      p50Ms: mean(measured.map((run) => run.p50Ms)),
      p99Ms: mean(measured.map((run) => run.p99Ms)),
      batches: added(measured.map((run) => run.batchSizes)),
      oneConnection:
        single.length === 0 ? undefined : mean(single.map((run) => run.requestsPerSecond)),
      oneConnectionP50Ms: single.length === 0 ? undefined : mean(single.map((run) => run.p50Ms)),
      oneConnectionMeanMs: single.length === 0 ? undefined : mean(single.map((run) => run.meanMs)),
    };
  });
}

/** The batch sizes in a line: mean, and the share of statements per bucket. */
function describeBatches(batches: BatchSizes | undefined): string {
  if (batches === undefined || batches.count === 0) return '–';
  let below = 0;
  const shares: string[] = [];
  for (const [le, cumulative] of Object.entries(batches.buckets)) {
    const inBucket = cumulative - below;
    below = cumulative;
    if (inBucket > 0) shares.push(`≤${le}: ${((100 * inBucket) / batches.count).toFixed(0)}%`);
  }
  return `${(batches.sum / batches.count).toFixed(1)} (${shares.join(', ')})`;
}

export interface StoreTarget {
  readonly target: string;
  readonly measured: string;
  readonly met: boolean;
}

export function checkStoreTargets(stores: readonly StoreSummary[]): StoreTarget[] {
  const byHand = stores.find((store) => store.row === 'pg-plain');
  return stores.flatMap((store) => {
    const targets: StoreTarget[] = [];
    const getRatio = GET_TARGETS[store.row];
    if (getRatio !== undefined) {
      targets.push({
        target: `${store.label}: GET at least ${getRatio.toFixed(1)}× the memory store's`,
        measured: `${store.getRatio.toFixed(2)}×`,
        met: store.getRatio >= getRatio,
      });
    }
    const ratio = CYCLE_TARGETS[store.row];
    if (ratio !== undefined) {
      targets.push({
        target: `${store.label}: cycle at least ${ratio.toFixed(1)}× the memory store's`,
        measured: `${store.cycleRatio.toFixed(2)}×`,
        met: store.cycleRatio >= ratio,
      });
    }
    const handRatio = HAND_WRITTEN_CYCLE_TARGETS[store.row];
    if (handRatio !== undefined && byHand !== undefined) {
      // By CPU: what a request costs the machine, the process's and the PostgreSQL server's, since
      // the hand-written app hands its work to the database; the process's alone beside.
      const byRate = store.cycle / byHand.cycle;
      const total = (summary: StoreSummary) =>
        summary.cycleCpuUs + (summary.cycleDatabaseCpuUs ?? 0);
      const byCpu = total(byHand) / total(store);
      targets.push({
        target: `${store.label}: cycle at least ${handRatio.toFixed(1)}× ${byHand.row}'s, by rate and by CPU (the process's and the database's)`,
        measured: `${byRate.toFixed(2)}× by rate (${store.cycle.toFixed(0)} vs ${byHand.cycle.toFixed(0)} req/s), ${byCpu.toFixed(2)}× by CPU (${total(store).toFixed(0)} vs ${total(byHand).toFixed(0)} µs a request; the process's alone ${(byHand.cycleCpuUs / store.cycleCpuUs).toFixed(2)}×, ${store.cycleCpuUs.toFixed(0)} vs ${byHand.cycleCpuUs.toFixed(0)} µs)`,
        met: byRate >= handRatio && byCpu >= handRatio,
      });
    }
    const p99Ratio = HAND_WRITTEN_P99_TARGETS[store.row];
    if (p99Ratio !== undefined && byHand !== undefined) {
      targets.push({
        target: `${store.label}: cycle p99 at most ${p99Ratio.toFixed(1)}× ${byHand.row}'s`,
        measured: `${(store.p99Ms / byHand.p99Ms).toFixed(2)}× (${store.p99Ms.toFixed(1)} vs ${byHand.p99Ms.toFixed(1)} ms)`,
        met: store.p99Ms <= p99Ratio * byHand.p99Ms,
      });
    }
    const statements = STATEMENTS_PER_GET_TARGETS[store.row];
    if (statements !== undefined) {
      const measured = store.statementsPerGet;
      targets.push({
        target: `${store.label}: at most ${statements} statement per GET on average`,
        measured: measured === undefined ? 'not counted' : measured.toFixed(3),
        met: measured !== undefined && measured <= statements,
      });
    }
    return targets;
  });
}

const perRequest = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(3));
const microseconds = (value: number | undefined) => (value === undefined ? '–' : value.toFixed(0));
/** The statements of a row's cycle printed: those of at least 1% of its database time. */
const STATEMENTS_SHOWN = 0.01;

export function printStores(
  stores: readonly StoreSummary[],
  targets: readonly StoreTarget[],
  connections: number,
): void {
  console.log(
    `\n### The stores: GET and the cycle beside the memory store (workforce-kit on Express), ${connections} connections (the cycle also at one)\n`,
  );
  console.log(
    `| store | GET req/s | × memory | server CPU µs | database CPU µs | statements per GET (the rate limits') | cycle req/s | × memory | server CPU µs | database CPU µs | statements per cycle request | p50 / p99 ms | write batch size: mean (share of statements) | one connection: req/s, p50 / mean ms |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const store of stores) {
    const single =
      store.oneConnection === undefined
        ? '–'
        : `${store.oneConnection.toFixed(0)}, ${store.oneConnectionP50Ms?.toFixed(1)} / ${store.oneConnectionMeanMs?.toFixed(2)}`;
    console.log(
      `| ${store.label} | ${store.get.toFixed(0)} | ${store.getRatio.toFixed(2)} | ${store.getCpuUs.toFixed(0)} | ${microseconds(store.getDatabaseCpuUs)} | ${perRequest(store.statementsPerGet)}${store.rateLimitStatementsPerGet === undefined ? '' : ` (${perRequest(store.rateLimitStatementsPerGet)})`} | ${store.cycle.toFixed(0)} | ${store.cycleRatio.toFixed(2)} | ${store.cycleCpuUs.toFixed(0)} | ${microseconds(store.cycleDatabaseCpuUs)} | ${perRequest(store.statementsPerCycleRequest)} | ${store.p50Ms.toFixed(1)} / ${store.p99Ms.toFixed(1)} | ${describeBatches(store.batches)} | ${single} |`,
    );
  }
  console.log('');
  for (const target of targets) {
    console.log(`- ${target.target}: ${target.measured}, ${target.met ? 'met' : 'NOT met'}`);
  }
  for (const store of stores) {
    const time = store.cycleStatements.reduce((sum, each) => sum + each.execUsPerRequest, 0);
    const shown = store.cycleStatements.filter(
      (each) => each.execUsPerRequest >= STATEMENTS_SHOWN * time,
    );
    if (shown.length === 0) continue;
    console.log(
      `\n${store.label}, the cycle's statements (pg_stat_statements; execution time in the database):\n`,
    );
    console.log('| calls per request | µs per request | mean ms per call | statement |');
    console.log('|---:|---:|---:|---|');
    for (const each of shown) {
      console.log(
        `| ${each.callsPerRequest.toFixed(3)} | ${each.execUsPerRequest.toFixed(1)} | ${each.meanMs.toFixed(3)} | \`${each.query.replaceAll('|', '\\|')}\` |`,
      );
    }
  }
}
