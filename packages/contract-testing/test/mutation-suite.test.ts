// The proof that the kit catches bugs: the real router over the memory store passes a whole run
// with the kit's default settings, and each deliberately broken variant of it
// (test/support/mutants.ts) fails one, for the rule the bug breaks. A mutant's run has the default
// settings and ends at its first failing property: the properties before it ran exactly as in a
// whole default run, so a whole default run fails there too. The RNG seed is the default (random),
// printed.
import { checkApiContract, formatReport, type Report } from '@workforce-kit/contract-testing';
import { describe, expect, it } from 'vitest';
import {
  type ContractOptions,
  prepareContract,
  runProperties,
  runSettingsOf,
} from '../src/check-api-contract.js';
import { MUTANTS } from './support/mutants.js';
import { AUTH, demoSeedJson, routerTarget } from './support/router-target.js';

async function optionsFor(
  hooks: Parameters<typeof routerTarget>[0] = {},
): Promise<ContractOptions> {
  const target = await routerTarget(hooks);
  return {
    target: { handler: target.handler, reset: () => target.reset() },
    seed: demoSeedJson,
    auth: AUTH,
  };
}

describe('the correct router over the memory store', () => {
  it('keeps every property of the contract', async () => {
    const report: Report = await checkApiContract(await optionsFor());
    expect(report.failed, formatReport(report)).toBe(0);
    expect(report.passed).toBe(report.results.length);
    console.info(
      `correct router: ${report.passed} properties, ${report.requests} requests in ${report.durationMs} ms`,
    );
  });
});

describe.each(MUTANTS)('the mutant $name ($bug)', ({ hooks }) => {
  it('is killed by a default run: a broken rule, with a replay', async () => {
    const options = await optionsFor(hooks);
    const settings = runSettingsOf(options);
    const prepared = await prepareContract(options);
    let results: Awaited<ReturnType<typeof runProperties>>;
    try {
      results = await runProperties(prepared, settings, {
        until: (result) => result.status === 'failed',
      });
    } finally {
      await prepared.close();
    }
    const failed = results.filter((r) => r.status === 'failed');
    expect(failed.length, `rng seed ${settings.rngSeed}: the mutant survived`).toBe(1);
    for (const result of failed) {
      expect(result.rule, result.message).not.toBe('error');
      expect(result.replay?.length, result.name).toBeGreaterThan(0);
    }
    console.info(
      `killed by ${failed.map((r) => `${r.name} (${r.rule})`).join(', ')} after ${results.length} properties; rng seed ${settings.rngSeed}`,
    );
  });
});
