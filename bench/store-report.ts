// The stores in the HTTP bench (issue 21): the archive/unarchive cycle of the reference server on
// PGlite and on a PostgreSQL server beside the same server on the memory store (the wk-express
// row), at the bench's connections and at one, with the batch sizes the PostgreSQL store's group
// commit made during the measured runs (from `workforce_kit_store_batch_size` in /metrics).
import type { RowId } from './http-rows.js';

/** The rows of the store table: the memory store first (the baseline), then PGlite, PostgreSQL. */
export const STORE_ROWS: readonly RowId[] = ['wk-express', 'wk-pglite', 'wk-postgres'];

/** The targets of issue 21: each store's cycle at least this many times the memory store's. */
const CYCLE_TARGETS: Partial<Record<RowId, number>> = { 'wk-pglite': 0.5, 'wk-postgres': 0.6 };

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
  readonly batchSizes?: BatchSizes | undefined;
}

export interface StoreSummary {
  readonly row: RowId;
  readonly label: string;
  readonly cycle: number;
  readonly cycleRatio: number;
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

/**
 * Each store row's cycle (means of its runs) against the memory store's, with its batch sizes;
 * `cycle` and `oneConnection` name the scenarios at the bench's connections and at one.
 */
export function summariseStores(
  runs: readonly StoreRun[],
  labels: ReadonlyMap<RowId, string>,
  cycle: string,
  oneConnection: string,
): StoreSummary[] {
  const of = (scenario: string, row: RowId) =>
    runs.filter((run) => run.scenario === scenario && run.row === row);
  const memory = mean(of(cycle, 'wk-express').map((run) => run.requestsPerSecond));
  return STORE_ROWS.filter((row) => labels.has(row)).map((row) => {
    const measured = of(cycle, row);
    const single = of(oneConnection, row);
    const requestsPerSecond = mean(measured.map((run) => run.requestsPerSecond));
    return {
      row,
      label: labels.get(row) ?? row,
      cycle: requestsPerSecond,
      cycleRatio: requestsPerSecond / memory,
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
  return stores.flatMap((store) => {
    const ratio = CYCLE_TARGETS[store.row];
    if (ratio === undefined) return [];
    return [
      {
        target: `${store.label}: cycle at least ${ratio.toFixed(1)}× the memory store's`,
        measured: `${store.cycleRatio.toFixed(2)}×`,
        met: store.cycleRatio >= ratio,
      },
    ];
  });
}

export function printStores(
  stores: readonly StoreSummary[],
  targets: readonly StoreTarget[],
  connections: number,
): void {
  console.log(
    `\n### The stores: the cycle beside the memory store (workforce-kit on Express), ${connections} connections and one\n`,
  );
  console.log(
    `| store | cycle req/s | × memory | p50 / p99 ms | statement batch size: mean (share of statements) | one connection: req/s, p50 / mean ms |`,
  );
  console.log('|---|---|---|---|---|---|');
  for (const store of stores) {
    const single =
      store.oneConnection === undefined
        ? '–'
        : `${store.oneConnection.toFixed(0)}, ${store.oneConnectionP50Ms?.toFixed(1)} / ${store.oneConnectionMeanMs?.toFixed(2)}`;
    console.log(
      `| ${store.label} | ${store.cycle.toFixed(0)} | ${store.cycleRatio.toFixed(2)} | ${store.p50Ms.toFixed(1)} / ${store.p99Ms.toFixed(1)} | ${describeBatches(store.batches)} | ${single} |`,
    );
  }
  console.log('');
  for (const target of targets) {
    console.log(`- ${target.target}: ${target.measured}, ${target.met ? 'met' : 'NOT met'}`);
  }
}
