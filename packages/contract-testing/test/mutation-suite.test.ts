// The proof that the kit catches bugs: the real router over the memory store passes with the
// kit's default settings, and each deliberately broken variant of it (test/support/mutants.ts)
// fails, for the rule the bug breaks. The RNG seed is the default (random), printed on failure.
import { checkApiContract, formatReport, type Report } from '@workforce-kit/contract-testing';
import { describe, expect, it } from 'vitest';
import { MUTANTS } from './support/mutants.js';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

async function runKit(hooks: Parameters<typeof routerTarget>[0] = {}): Promise<Report> {
  const target = await routerTarget(hooks);
  return checkApiContract({
    target: { handler: target.handler, reset: () => target.reset() },
    seed: demoSeedJson,
    auth: AUTH,
  });
}

describe('the correct router over the memory store', () => {
  it('keeps every property of the contract', async () => {
    const report = await runKit();
    expect(report.failed, formatReport(report)).toBe(0);
    expect(report.passed).toBe(report.results.length);
    console.info(
      `correct router: ${report.passed} properties, ${report.requests} requests in ${report.durationMs} ms`,
    );
  });
});

describe.each(MUTANTS)('the mutant $name ($bug)', ({ hooks }) => {
  it('is killed: the kit reports a broken rule, with a replay', async () => {
    const report = await runKit(hooks);
    const failed = report.results.filter((r) => r.status === 'failed');
    expect(failed.length, `rng seed ${report.rngSeed}: the mutant survived`).toBeGreaterThan(0);
    for (const result of failed) {
      expect(result.rule, result.message).not.toBe('error');
      expect(result.replay?.length, result.name).toBeGreaterThan(0);
    }
    console.info(
      `killed by ${failed.map((r) => `${r.name} (${r.rule})`).join(', ')}; rng seed ${report.rngSeed}`,
    );
  });
});
