// What a run covered, and --min-coverage. The tally: answers by operation and status beside the
// statuses the spec declares, checks by rule, the declared statuses not seen with the reason when
// the kit cannot provoke them. A run whose properties all hold but which saw too little (two runs
// per property) fails with minCoverage, and says what it lacked in each report.
import { checkApiContract, formatReport, toJUnitXml } from '@workforce-kit/contract-testing';
import { describe, expect, it } from 'vitest';
import { CoverageTally, coverageGaps } from '../src/coverage.js';
import { loadSeed } from '../src/seed-source.js';
import { readSpec } from '../src/spec-reader.js';
import { stateTableOperations } from '../src/state-table-operations.js';
import { buildWorld } from '../src/world.js';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

const spec = readSpec();
const world = buildWorld(spec, await loadSeed(demoSeedJson));
const newTally = () => new CoverageTally(world, stateTableOperations(spec));

describe('the coverage tally', () => {
  it('lists every declared status beside those seen, and the unseen with their reason', () => {
    const tally = newTally();
    tally.answered('getRestaurant', 200);
    tally.answered('getRestaurant', 200);
    tally.answered('getRestaurant', 418);
    tally.checked('no-reveal');
    const coverage = tally.coverage(spec);
    const declared = [
      ...(spec.operations.find((o) => o.id === 'getRestaurant')?.responses.keys() ?? []),
    ];
    expect(Object.keys(coverage.operations.getRestaurant ?? {}).sort()).toEqual(
      [...declared, '418'].sort(),
    );
    expect(coverage.operations.getRestaurant?.['200']).toBe(2);
    expect(coverage.operations.getRestaurant?.['404']).toBe(0);
    expect(coverage.rules['no-reveal']).toBe(1);
    expect(coverage.rules['not-found']).toBe(0);
    const unseen = coverage.unseen.filter((u) => u.operationId === 'getRestaurant');
    expect(unseen.map((u) => u.status)).toEqual(declared.filter((s) => s !== '200'));
    expect(unseen.find((u) => u.status === '404')?.reason).toBeUndefined();
    expect(unseen.find((u) => u.status === '503')?.reason).toMatch(/storage/);
    expect(unseen.find((u) => u.status === '500')?.reason).toMatch(/internal error/);
    expect(unseen.find((u) => u.status === '429')?.reason).toMatch(/rate limits/);
  });

  it('names as gaps the reachable statuses not seen and the rules not checked, only those', () => {
    const tally = newTally();
    const gaps = coverageGaps(tally.coverage(spec));
    expect(gaps).toContain('getRestaurant never answered 404');
    expect(gaps).toContain('rule no-reveal never checked');
    expect(gaps.some((gap) => / (429|500|503)$/.test(gap))).toBe(false);
  });
});

it('fails a run that holds every property but saw too little, with minCoverage, in each report', async () => {
  const target = await routerTarget();
  const report = await checkApiContract({
    target: { handler: target.handler, reset: () => target.reset() },
    seed: demoSeedJson,
    auth: AUTH,
    runs: 2,
    rngSeed: 5,
    minCoverage: true,
  });
  expect(report.failed, formatReport(report)).toBe(0);
  expect(report.ok).toBe(false);
  expect(report.minCoverage?.met).toBe(false);
  const gaps = report.minCoverage?.gaps ?? [];
  expect(gaps.length).toBeGreaterThan(0);
  const text = formatReport(report);
  expect(text).toContain(`minimum coverage not met: ${gaps.join('; ')}`);
  expect(text.split('\n').at(-1)).toBe(
    `${report.passed} passed, 0 failed, minimum coverage not met`,
  );
  const xml = toJUnitXml(report);
  expect(xml).toContain(
    '<testcase classname="workforce-kit-contract.coverage" name="coverage.minimum">\n    <failure message="minimum coverage not met"',
  );
  expect(xml).toContain(`failures="1"`);
  expect(JSON.parse(JSON.stringify(report)).coverage).toEqual(report.coverage);
});
