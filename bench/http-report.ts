// The HTTP bench's report: per scenario, each row's two runs summed up against bare Express of the
// same run, the issue's targets checked, and the tables printed.
import type { RowId } from './http-rows.js';

/** One measured run of one row in one scenario. */
export interface Run {
  readonly scenario: string;
  readonly row: RowId;
  readonly pass: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** The server's CPU time (user and system) per request of the measured load, in µs. */
  readonly serverCpuUs: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly statusCodes: Record<string, { count: number }>;
}

/** A row of a scenario: the mean of its runs, and the ratios to bare Express's. */
export interface Summary {
  readonly scenario: string;
  readonly row: RowId;
  readonly label: string;
  readonly requestsPerSecond: number;
  readonly runs: readonly number[];
  readonly ratio: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p99Ratio: number;
  /** The server's CPU time per request, in µs (the mean of its runs). */
  readonly cpuUs: number;
  /**
   * Bare Express's CPU time per request over this row's: how many of this row's requests one
   * core serves in the time it serves one of bare Express's. On a VM whose host steals time,
   * steadier than the ratio of rates.
   */
  readonly cpuRatio: number;
}

export interface TargetResult {
  readonly scenario: string;
  readonly target: string;
  readonly measured: string;
  /** Whether it was met; `undefined` when this run cannot judge it (a ratio with no meaning). */
  readonly met: boolean | undefined;
}

const mean = (values: readonly number[]) =>
  values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);

export function summarise(
  scenario: string,
  runs: readonly Run[],
  labels: ReadonlyMap<RowId, string>,
): Summary[] {
  const of = (row: RowId) => runs.filter((run) => run.scenario === scenario && run.row === row);
  const bare = of('bare');
  const bareRps = mean(bare.map((run) => run.requestsPerSecond));
  const bareP99 = mean(bare.map((run) => run.p99Ms));
  const bareCpu = mean(bare.map((run) => run.serverCpuUs));
  return [...labels].map(([row, label]) => {
    const measured = of(row);
    const requestsPerSecond = mean(measured.map((run) => run.requestsPerSecond));
    const p99Ms = mean(measured.map((run) => run.p99Ms));
    const cpuUs = mean(measured.map((run) => run.serverCpuUs));
    return {
      scenario,
      row,
      label,
      requestsPerSecond,
      runs: measured.map((run) => run.requestsPerSecond),
      ratio: requestsPerSecond / bareRps,
      p50Ms: mean(measured.map((run) => run.p50Ms)),
      p99Ms,
      p99Ratio: p99Ms / bareP99,
      cpuUs,
      cpuRatio: bareCpu / cpuUs,
    };
  });
}

/**
 * Issue 27's targets for a scenario, for the rows that were measured: judged by the server's CPU
 * per request (the ratio "by CPU"), the rates beside them.
 */
export function checkTargets(scenario: 'GET' | 'cycle', rows: readonly Summary[]): TargetResult[] {
  const row = (id: RowId) => rows.find((summary) => summary.row === id);
  const results: TargetResult[] = [];
  /** `id`'s CPU per request against `peer`'s: at least `ratio` of `peer`'s requests per core time. */
  const atLeast = (
    id: RowId,
    label: string,
    ratio: number,
    peer: RowId,
    peerLabel: string,
    floorId?: RowId,
  ) => {
    const [measured, other] = [row(id), row(peer)];
    if (measured === undefined || other === undefined) return;
    const byCpu = other.cpuUs / measured.cpuUs;
    // With the row of the same work written plainly measured, its ratio beside: the floor.
    const floor = floorId === undefined ? undefined : row(floorId);
    const floorText =
      floor === undefined
        ? ''
        : `; the same work written plainly, ${floorId}: ${(other.cpuUs / floor.cpuUs).toFixed(2)}×, ${floor.cpuUs.toFixed(0)} µs`;
    results.push({
      scenario,
      target: `${label}: at least ${ratio.toFixed(1)}× ${peerLabel} by CPU`,
      measured: `${byCpu.toFixed(2)}× (${measured.cpuUs.toFixed(0)} vs ${other.cpuUs.toFixed(0)} µs a request; by rate ${(measured.requestsPerSecond / other.requestsPerSecond).toFixed(2)}×${floorText})`,
      met: byCpu >= ratio,
    });
  };
  /**
   * A row's CPU beyond its base row's against another row's beyond its base's, at most `most`
   * times: the Express adapter's beyond its floor against the node:http adapter's beyond its; the
   * NestJS module's beyond bare NestJS against the Express adapter's beyond bare Express.
   */
  const beyond = (
    [id, base, label, baseLabel]: readonly [RowId, RowId, string, string],
    [otherId, otherBase, otherLabel, otherBaseLabel]: readonly [RowId, RowId, string, string],
    most: number,
  ) => {
    const [measured, measuredBase, other, otherBaseRow] = [id, base, otherId, otherBase].map(row);
    if (!measured || !measuredBase || !other || !otherBaseRow) return;
    const measuredBeyond = measured.cpuUs - measuredBase.cpuUs;
    const otherBeyond = other.cpuUs - otherBaseRow.cpuUs;
    // With the other row at or below its base (its work cheaper than the base's), a multiple of
    // what it costs beyond it means nothing: the figures are printed, not judged.
    const judged = otherBeyond > 0;
    results.push({
      scenario,
      target: `${label}: CPU beyond ${baseLabel} at most ${most}× the ${otherLabel}'s beyond ${otherBaseLabel}`,
      measured: `${measuredBeyond.toFixed(0)} vs ${otherBeyond.toFixed(0)} µs a request${judged ? '' : ` (the ${otherLabel} costs no more than ${otherBaseLabel}: no ratio)`}`,
      met: judged ? measuredBeyond <= most * otherBeyond : undefined,
    });
  };
  const p99 = (id: RowId, label: string, bare: RowId, bareLabel: string) => {
    const [measured, other] = [row(id), row(bare)];
    if (measured === undefined || other === undefined) return;
    results.push({
      scenario,
      target: `${label}: p99 no worse than ${bareLabel}'s`,
      measured: `${measured.p99Ms.toFixed(1)} vs ${other.p99Ms.toFixed(1)} ms`,
      met: measured.p99Ms <= other.p99Ms,
    });
  };
  const byHand = 'Fastify by hand';
  if (scenario === 'GET') {
    atLeast('wk-node', 'node:http adapter', 3.0, 'bare', 'bare Express', 'node-plain');
    atLeast('wk-fastify', 'Fastify adapter', 1.3, 'fastify-reference', byHand);
    atLeast('wk-express', 'Express adapter', 0.8, 'bare', 'bare Express');
    beyond(
      ['wk-express', 'express-floor', 'Express adapter', 'express-floor'],
      ['wk-node', 'node-floor', 'node:http adapter', 'node-floor'],
      1.25,
    );
  } else {
    atLeast('wk-node', 'node:http adapter', 2.0, 'bare', 'bare Express', 'node-plain');
    atLeast('wk-fastify', 'Fastify adapter', 1.0, 'fastify-reference', byHand);
  }
  // In each scenario: what the module adds to Nest against what the adapter adds to Express.
  beyond(
    ['wk-nestjs', 'nest-bare', 'NestJS module', 'bare NestJS'],
    ['wk-express', 'bare', 'Express adapter', 'bare Express'],
    1.25,
  );
  p99('wk-express', 'Express adapter', 'bare', 'bare Express');
  p99('wk-fastify', 'Fastify adapter', 'fastify-bare', 'bare Fastify');
  p99('wk-node', 'node:http adapter', 'node-bare', 'bare node:http');
  return results;
}

/** An adapter's row over its host's bare row, in the same run: what the API costs on that host. */
export interface HostRatio {
  readonly scenario: string;
  readonly row: RowId;
  readonly host: RowId;
  readonly text: string;
}

/**
 * The adapters beside their hosts' bare rows, where both were measured: the fetch adapter on Hono
 * beside bare Hono, on Bun.serve beside bare Bun.serve, the NestJS module beside bare NestJS (and
 * the node:http adapter beside bare node:http, for comparison): ratios of rates and of server CPU
 * per request.
 */
export function hostRatios(scenario: string, rows: readonly Summary[]): HostRatio[] {
  const row = (id: RowId) => rows.find((summary) => summary.row === id);
  const pairs: [RowId, RowId, string][] = [
    ['wk-hono', 'hono-bare', 'the fetch adapter on Hono × bare Hono'],
    ['wk-bun', 'bun-bare', 'the fetch adapter on Bun.serve × bare Bun.serve'],
    ['wk-node', 'node-bare', 'the node:http adapter × bare node:http'],
    ['wk-nestjs', 'nest-bare', 'the NestJS module × bare NestJS'],
  ];
  return pairs.flatMap(([id, hostId, label]) => {
    const [measured, host] = [row(id), row(hostId)];
    if (measured === undefined || host === undefined) return [];
    const text = `${label}: ${(measured.requestsPerSecond / host.requestsPerSecond).toFixed(2)}× (${measured.requestsPerSecond.toFixed(0)} vs ${host.requestsPerSecond.toFixed(0)} req/s); by CPU ${(host.cpuUs / measured.cpuUs).toFixed(2)}× (${measured.cpuUs.toFixed(0)} vs ${host.cpuUs.toFixed(0)} µs/request)`;
    return [{ scenario, row: id, host: hostId, text }];
  });
}

export function printScenario(
  title: string,
  rows: readonly Summary[],
  targets: readonly TargetResult[],
  ratios: readonly HostRatio[] = [],
): void {
  console.log(`\n### ${title}\n`);
  console.log(
    '| stack | req/s | × bare Express | server CPU µs/request | × bare Express by CPU | p50 / p99 ms | p99 × bare Express | runs req/s |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const row of rows) {
    console.log(
      `| ${row.label} | ${row.requestsPerSecond.toFixed(0)} | ${row.ratio.toFixed(2)} | ${row.cpuUs.toFixed(0)} | ${row.cpuRatio.toFixed(2)} | ${row.p50Ms.toFixed(1)} / ${row.p99Ms.toFixed(1)} | ${row.p99Ratio.toFixed(2)} | ${row.runs.map((value) => value.toFixed(0)).join(', ')} |`,
    );
  }
  console.log('');
  for (const target of targets) {
    const verdict = target.met === undefined ? 'not judged' : target.met ? 'met' : 'NOT met';
    console.log(`- ${target.target}: ${target.measured}, ${verdict}`);
  }
  for (const ratio of ratios) console.log(`- ${ratio.text}`);
}
