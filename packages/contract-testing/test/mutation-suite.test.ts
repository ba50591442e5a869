// The proof that the kit catches bugs: the real router over the memory store passes a whole run
// with the kit's default settings, and each deliberately broken variant of it
// (test/support/mutants.ts) fails one, for the rule the bug breaks. A mutant's run has the default
// settings and ends at its first failing property: the properties before it ran exactly as in a
// whole default run, so a whole default run fails there too. The RNG seed is the default (random),
// printed. A run finds a race by chance: a race mutant that survives one gets a second.
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
    // The demo seed, reset before each run, leaves no group about changes short of them.
    expect(report.coverage.thinEvidence, formatReport(report)).toEqual([]);
    console.info(
      `correct router: ${report.passed} properties, ${report.requests} requests in ${report.durationMs} ms`,
    );
  });
});

/** A default run against the router broken by `hooks`, until its first failing property. */
async function defaultRunOf(hooks: Parameters<typeof routerTarget>[0]) {
  const options = await optionsFor(hooks);
  const settings = runSettingsOf(options);
  const prepared = await prepareContract(options);
  try {
    const results = await runProperties(prepared, settings, {
      until: (result) => result.status === 'failed',
    });
    return { results, rngSeed: settings.rngSeed };
  } finally {
    await prepared.close();
  }
}

describe.each(MUTANTS)('the mutant $name ($bug)', ({ hooks, race }) => {
  const runs = race ? 'one of two default runs' : 'a default run';
  it(`is killed by ${runs}: a broken rule, with a replay`, async () => {
    const seeds: number[] = [];
    let run = await defaultRunOf(hooks);
    seeds.push(run.rngSeed);
    if (race && !run.results.some((r) => r.status === 'failed')) {
      run = await defaultRunOf(hooks);
      seeds.push(run.rngSeed);
    }
    const failed = run.results.filter((r) => r.status === 'failed');
    expect(failed.length, `rng seeds ${seeds.join(', ')}: the mutant survived`).toBe(1);
    for (const result of failed) {
      expect(result.rule, result.message).not.toBe('error');
      expect(result.replay?.length, result.name).toBeGreaterThan(0);
    }
    console.info(
      `killed by ${failed.map((r) => `${r.name} (${r.rule})`).join(', ')} after ${run.results.length} properties; rng seeds ${seeds.join(', ')}`,
    );
  });
});

const mutantNamed = (name: string) => {
  const found = MUTANTS.find((m) => m.name === name);
  if (found === undefined) throw new Error(`no mutant ${name}`);
  return found;
};

/** The first failure of a text report, in full: its lines up to the next blank or `✘` line. */
function firstFailureOf(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex(
    (line, i) => line.startsWith('✘ ') && lines[i + 1]?.startsWith('  rule '),
  );
  const end = lines.findIndex((line, i) => i > start && (line === '' || line.startsWith('✘ ')));
  return lines.slice(start, end);
}

/** What a shrunk counterexample of the HTTP properties starts with: an HTTP call. */
const HTTP_CALL = /^\[+(GET|HEAD|PUT|DELETE|POST|PATCH|OPTIONS|TRACE) \/\S*/;
/** A shrunk race prints each part's HTTP calls: the prefix, the branches, the suffix. */
const RACE_CALLS = /^\[prefix: (nothing|(PUT|DELETE) \/\S*).*; branch A: (PUT|DELETE) \/\S*/;
/** A control character, raw or escaped as JSON writes it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]|\\[tnrbf]|\\u00[0-9a-f]{2}/i;

describe('a store bug that breaks several properties', () => {
  it("is named in the domain's words, never as a refusal that changed nothing, and each shrunk case prints as an HTTP call", async () => {
    // As the command meets a store that archives without deletedDate: a live target, never reset.
    const target = await routerTarget(mutantNamed('archive-without-deleted-date').hooks);
    const report = await checkApiContract({
      target: target.handler,
      seed: demoSeedJson,
      auth: AUTH,
    });
    const text = formatReport(report);
    const failed = report.results.filter((r) => r.status === 'failed');
    expect(failed.length, text).toBeGreaterThan(1);
    for (const result of failed) {
      // No refused request changed anything: the rule broken is the one that names the fault.
      expect(result.rule, result.message).not.toBe('unchanged-by-refusal');
      expect(result.counterexample, result.name).toMatch(
        result.group === 'concurrent' ? RACE_CALLS : HTTP_CALL,
      );
      expect(result.counterexample, result.name).not.toMatch(/"role"|"context"|"grant"/);
      expect(result.counterexample, result.name).not.toMatch(CONTROL);
    }
    const [, rule, message] = firstFailureOf(text);
    expect(rule, text).toMatch(/^ {2}rule (documented-body|deleted-date):/);
    expect(message, text).toMatch(/^ {2}an archived employee's `deletedDate` is missing \(ajv: /);
    console.info(
      `${failed.length} properties broken: ${failed.map((r) => `${r.name} (${r.rule})`).join(', ')}; rng seed ${report.rngSeed}`,
    );
  });

  it('is a refusal that changed something when the record read back shows a write', async () => {
    const target = await routerTarget(mutantNamed('archives-before-the-token-is-checked').hooks);
    const report = await checkApiContract({
      target: { handler: target.handler, reset: () => target.reset() },
      seed: demoSeedJson,
      auth: AUTH,
      only: ['auth'],
      // A refused archive of an employee who is not archived is one call in several of each
      // property: a fixed seed, so that every property meets one.
      rngSeed: 5,
    });
    const failed = report.results.filter((r) => r.status === 'failed');
    expect(failed.map((r) => r.name).sort(), formatReport(report)).toEqual([
      'auth.insufficient-scope',
      'auth.invalid-token',
      'auth.restaurant-not-permitted',
    ]);
    for (const result of failed) {
      expect(result.rule, result.message).toBe('unchanged-by-refusal');
      expect(result.message).toMatch(
        /^reading employee \S+ back after DELETE \S+ \(answered 40[13]\): unarchive answered 200: the employee was archived; /,
      );
    }
  });
});
