// How often each property's changes ran against a record they change, and the warning where the
// stateful or the concurrent group ran a kind too few times for want of records in the seed
// (thin evidence), which --min-coverage fails on. A seed with two shifts against a target that is
// not reset (each shift deleted once for the whole run) draws it; the SQLite example's seed
// against a target reset before each run does not (the demo seed neither: the mutation suite's
// default run of the correct router).
import { readFileSync } from 'node:fs';
import {
  checkApiContract,
  formatReport,
  type Report,
  toHtmlReport,
  toJUnitXml,
} from '@workforce-kit/contract-testing';
import { describe, expect, it } from 'vitest';
import { type ChangeRole, MIN_CHANGES } from '../src/change-evidence.js';
import { CoverageTally, coverageGaps } from '../src/coverage.js';
import type { PropertyGroup } from '../src/property-groups.js';
import { loadSeed } from '../src/seed-source.js';
import { readSpec } from '../src/spec-reader.js';
import { stateTableOperations } from '../src/state-table-operations.js';
import { buildWorld } from '../src/world.js';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';
import { seedWithShifts } from './support/seed-with-shifts.js';

const spec = readSpec();
const operations = stateTableOperations(spec);

/** A tally over `seed` in which `property` of `group` made `runs` runs and ran `changes`. */
async function tallyOf(
  seed: Record<string, unknown>,
  property: string,
  group: PropertyGroup,
  { runs = 100, passed = true, changes = {} as Partial<Record<ChangeRole, [number, number]>> },
) {
  const tally = new CoverageTally(buildWorld(spec, await loadSeed(seed)), operations);
  tally.startProperty(property, group, runs);
  for (const [role, [reached, changed]] of Object.entries(changes) as [ChangeRole, number[]][]) {
    for (let i = 0; i < (reached ?? 0); i++) tally.reachedRecord(role, i < (changed ?? 0));
  }
  if (passed) tally.propertyPassed();
  return tally.coverage(spec);
}

const enough = (n = MIN_CHANGES): Partial<Record<ChangeRole, [number, number]>> => ({
  unarchive: [n, n],
  archive: [n, n],
  deleteShift: [n, n],
});

describe('the changes tally', () => {
  it('counts, per property and operation, the calls that reached a record and those that changed it', async () => {
    const coverage = await tallyOf(demoSeedJson, 'stateful.state-tables', 'stateful', {
      changes: { ...enough(), deleteShift: [7, 3] },
    });
    expect(coverage.changes).toEqual({
      'stateful.state-tables': {
        unarchiveEmployee: { reached: MIN_CHANGES, changed: MIN_CHANGES },
        archiveEmployee: { reached: MIN_CHANGES, changed: MIN_CHANGES },
        deleteShift: { reached: 7, changed: 3 },
      },
    });
    expect(coverage.thinEvidence).toEqual([
      {
        property: 'stateful.state-tables',
        operationId: 'deleteShift',
        changed: 3,
        records: 3,
        message:
          'stateful.state-tables deleted shifts 3 times: the seed has 3 shifts that are not deleted; a seed with more makes this check stronger',
      },
    ]);
    expect(coverageGaps(coverage)).toContain(coverage.thinEvidence[0]?.message);
  });

  it(`warns from ${MIN_CHANGES} changes down, in the words of the group and the seed`, async () => {
    const atLeast = await tallyOf(demoSeedJson, 'concurrent.races', 'concurrent', {
      changes: enough(),
    });
    expect(atLeast.thinEvidence).toEqual([]);
    const seed = seedWithShifts(demoSeedJson, 1, 0);
    const few = await tallyOf(seed, 'concurrent.races', 'concurrent', {
      changes: { deleteShift: [40, 1] },
    });
    expect(few.thinEvidence.map((t) => t.message)).toEqual([
      'concurrent.races raced unarchives 0 times: the seed has no employees; a seed with more makes this check stronger',
      'concurrent.races raced archives 0 times: the seed has no employees; a seed with more makes this check stronger',
      'concurrent.races raced shift deletes once: the seed has 1 shift that is not deleted; a seed with more makes this check stronger',
    ]);
  });

  it('names the runs too when a property made fewer than the default', async () => {
    const coverage = await tallyOf(demoSeedJson, 'stateful.state-tables', 'stateful', {
      runs: 20,
      changes: { ...enough(), unarchive: [4, 4] },
    });
    expect(coverage.thinEvidence.map((t) => t.message)).toEqual([
      'stateful.state-tables unarchived employees 4 times: the seed has 3 employees; a seed with more, or more than 20 runs, makes this check stronger',
    ]);
  });

  it('weighs only the stateful and concurrent groups, and only a property that held', async () => {
    for (const [property, group] of [
      ['stateless.deleteShift.valid-requests', 'stateless'],
      ['isolation.other-restaurants', 'isolation'],
    ] as const) {
      const coverage = await tallyOf(demoSeedJson, property, group, {
        changes: { deleteShift: [40, 1] },
      });
      expect(coverage.changes[property]?.deleteShift).toEqual({ reached: 40, changed: 1 });
      expect(coverage.thinEvidence).toEqual([]);
    }
    const failed = await tallyOf(demoSeedJson, 'concurrent.races', 'concurrent', {
      passed: false,
      changes: { deleteShift: [3, 1] },
    });
    expect(failed.thinEvidence).toEqual([]);
  });
});

/** A default run of the concurrent group over `seed` on the router, reset before each case or not. */
async function concurrentRun(
  seed: Record<string, unknown>,
  reset: boolean,
  only: Parameters<typeof checkApiContract>[0]['only'] = ['concurrent'],
): Promise<Report> {
  const target = await routerTarget({}, seed);
  return checkApiContract({
    target: reset ? { handler: target.handler, reset: () => target.reset() } : target.handler,
    seed,
    auth: AUTH,
    only,
    rngSeed: 3,
    minCoverage: true,
  });
}

it('warns of a seed that leaves the concurrent group too few shifts to race, and fails minCoverage', async () => {
  // A target that is not reset: each of the two shifts can be deleted once in the whole run.
  const report = await concurrentRun(seedWithShifts(demoSeedJson, 2), false);
  expect(report.failed, formatReport(report)).toBe(0);
  const raced = report.coverage.changes['concurrent.races']?.deleteShift;
  expect(raced?.changed).toBeLessThanOrEqual(2);
  expect(raced?.reached).toBeGreaterThan(100);
  const [thin, ...others] = report.coverage.thinEvidence;
  expect(others).toEqual([]);
  expect(thin).toMatchObject({ property: 'concurrent.races', operationId: 'deleteShift' });
  expect(thin?.message).toMatch(
    /^concurrent\.races raced shift deletes (0 times|once|2 times): the seed has 2 shifts that are not deleted; a seed with more makes this check stronger$/,
  );
  const message = thin?.message as string;
  expect(report.ok).toBe(false);
  expect(report.minCoverage?.gaps).toContain(message);
  const text = formatReport(report);
  expect(text).toContain(
    `thin evidence (a kind of change the stateful or concurrent group ran fewer than ${MIN_CHANGES} times):\n  ${message}`,
  );
  expect(text).toMatch(
    /\n {2}concurrent\.races {2}unarchiveEmployee \d+ of \d+, archiveEmployee \d+ of \d+, deleteShift [0-2] of \d+\n/,
  );
  expect(text.split('\n').at(-1)).toMatch(/, minimum coverage not met$/);
  expect(toJUnitXml(report)).toContain(
    `<property name="coverage.thin.concurrent.races.deleteShift" value="${message}"/>`,
  );
  expect(toHtmlReport(report)).toContain(
    `<h3>Thin evidence</h3><ul class="thin"><li>${message}</li></ul>`,
  );
  expect(JSON.parse(JSON.stringify(report)).coverage.thinEvidence).toEqual([thin]);
});

it("gives the stateful and concurrent groups every kind of change to run with the SQLite app's seed", async () => {
  const seed = JSON.parse(
    readFileSync(new URL('../../../examples/sqlite-app/seed.json', import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
  const report = await concurrentRun(seed, true, ['stateful', 'concurrent']);
  expect(report.failed, formatReport(report)).toBe(0);
  expect(report.coverage.thinEvidence).toEqual([]);
  for (const property of ['stateful.state-tables', 'concurrent.races']) {
    const counts = Object.values(report.coverage.changes[property] ?? {});
    expect(counts).toHaveLength(3);
    for (const { changed } of counts) expect(changed).toBeGreaterThanOrEqual(MIN_CHANGES);
  }
});
