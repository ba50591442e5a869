// Two runs of the kit at once in one process are independent: nothing of a run lives in a module.
// Three runs start together: against the correct router, against a broken one (a mutant of the
// mutation suite), and against a port where nothing listens. Each report is its own: the correct
// one passes whatever the others meet (a target that stopped answering poisoned every later run
// while that state was module-level), the broken one fails with a replay that names its own
// target only, and each counts its own requests and coverage.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkApiContract, formatReport, type Report } from '@workforce-kit/contract-testing';
import { expect, it } from 'vitest';
import { MUTANTS } from './support/mutants.js';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

/** A loopback port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const run = async (target: Parameters<typeof checkApiContract>[0]['target']): Promise<Report> =>
  checkApiContract({
    target,
    seed: demoSeedJson,
    auth: AUTH,
    runs: 40,
    rngSeed: 11,
    only: ['stateless', 'stateful'],
  });

/** Requests each property counted, summed: the client's total when the client is the run's own. */
const sumOfProperties = (report: Report) => report.results.reduce((n, r) => n + r.requests, 0);

it('keeps each run to itself when three run at once, one against a broken target', async () => {
  const correct = await routerTarget();
  const mutant = MUTANTS.find((m) => m.name === 'archive-twice-400');
  const broken = await routerTarget(mutant?.hooks);
  const [good, bad, gone] = await Promise.all([
    run({ handler: correct.handler, reset: () => correct.reset() }),
    run({ handler: broken.handler, reset: () => broken.reset() }),
    run(`http://127.0.0.1:${await closedPort()}`),
  ]);

  expect(good.failed, formatReport(good)).toBe(0);
  expect(good.passed).toBe(good.results.length);

  const failed = bad.results.filter((r) => r.status === 'failed');
  expect(failed.find((r) => r.name === 'stateful.state-tables')?.rule).toBe('archive-archived');
  for (const result of failed) {
    // The mutant's bug, seen directly or by reading back a record after a refusal.
    expect(['archive-archived', 'unchanged-by-refusal'], result.message).toContain(result.rule);
    const curls = (result.replay ?? []).filter((line) => line.startsWith('curl'));
    expect(curls.length).toBeGreaterThan(0);
    for (const line of curls) {
      expect(line).toContain(bad.baseUrl.replace(/\/$/, ''));
      expect(line).not.toContain(good.baseUrl.replace(/\/$/, ''));
    }
  }

  expect(gone.results.every((r) => r.status === 'failed' && r.rule === 'target-available')).toBe(
    true,
  );
  expect(gone.requests).toBe(gone.results.length);

  for (const report of [good, bad, gone]) {
    expect(report.requests).toBe(sumOfProperties(report));
    const answered = Object.values(report.statuses).reduce((n, count) => n + count, 0);
    expect(report.coverage.rules['target-available']).toBe(
      report === gone ? report.requests : answered,
    );
  }
  expect(new Set([good.baseUrl, bad.baseUrl, gone.baseUrl]).size).toBe(3);
});
