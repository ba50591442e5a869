/**
 * `describeApiContract` for vitest: the kit's properties as tests, one per property. Needs
 * `vitest` (an optional peer dependency); the main entry point does not.
 *
 * @packageDocumentation
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  type ContractOptions,
  type PreparedContract,
  prepareContract,
  propertySeed,
  runSettingsOf,
} from './check-api-contract.js';
import { coverageGaps } from './coverage.js';
import { EVENTS_RESULT, finishEvents } from './events-result.js';
import { runProperty } from './property-runner.js';
import { formatCoverage, formatFailure, formatResultLine } from './report-format.js';
import { startFromSeed } from './seed-start.js';
import { assertContractTarget } from './target.js';

/** Options of {@link describeApiContract}: those of `checkApiContract`, and a time limit. */
export interface DescribeApiContractOptions extends Omit<ContractOptions, 'onResult'> {
  /** The time limit of each property's test, in ms. @default 120000 */
  readonly timeoutMs?: number;
}

/**
 * Declares a vitest suite that property-tests `options.target` against the contract: a test per
 * property, failing with the rule broken, the shrunk counterexample and the curl commands that
 * replay it; with `events`, a test that waits for the events still due and fails on any finding
 * of the events (`events.delivery`); with `minCoverage`, a last test that fails unless the properties before it saw every
 * declared status the kit can provoke, checked every rule (so it fails when a filter such as
 * `vitest -t` left some of them out) and left no thin evidence (each kind of change run often
 * enough by the stateful and concurrent groups).
 *
 * @param name - the suite's name
 * @param options - the target (a base URL, an app, or `{ handler, reset }` / `{ factory }` to
 *   start each stateful run from the seed), the seed, how to get tokens, the runs
 * @example
 * ```ts
 * import { describeApiContract } from '@workforce-kit/contract-testing/vitest';
 *
 * describeApiContract('my deployment', {
 *   target: app, // an Express app mounting createRouter over your store
 *   seed: 'seed.json',
 *   auth: { hs256Secret, issuer: 'https://id.example.com/', audience: 'workforce-api' },
 * });
 * ```
 */
export function describeApiContract(name: string, options: DescribeApiContractOptions): void {
  // A wrong target fails where the suite is declared, not in its first test.
  assertContractTarget(options.target);
  describe(name, async () => {
    const prepared: PreparedContract = await prepareContract(options);
    const { rngSeed, runs, shrinkTimeLimitMs } = runSettingsOf(options);
    // The suite starts from the seed: an in-process target another suite used is reset first. A
    // record found not as the seed says fails the test of its property, and every later one, with
    // TargetNotSeeded.
    beforeAll(() => startFromSeed(prepared.engine));
    afterAll(() => prepared.close());
    for (const [index, definition] of prepared.properties.entries()) {
      const title = `${definition.name}: ${definition.summary}`;
      if (definition.notApplicable !== undefined) {
        it(title, () => {
          console.info(`${definition.name} does not apply: ${definition.notApplicable}`);
        });
        continue;
      }
      it(
        title,
        async () => {
          const result = await runProperty(prepared.engine, definition, {
            runs,
            seed: propertySeed(rngSeed, index),
            shrinkTimeLimitMs,
          });
          if (result.status === 'failed') throw new Error(formatFailure(result));
          if (result.status === 'undecided') throw new Error(formatResultLine(result));
        },
        options.timeoutMs ?? 120_000,
      );
    }
    const { events } = prepared.engine;
    if (events !== undefined) {
      it(
        `${EVENTS_RESULT}: every change's event came, once, in order; no other event`,
        async () => {
          const { result } = await finishEvents(events);
          if (result.status === 'failed') throw new Error(formatFailure(result));
          console.info(formatResultLine(result));
        },
        events.timeoutMs + (options.timeoutMs ?? 120_000),
      );
    }
    if (options.minCoverage) {
      it('covers every declared status the kit can provoke, checks every rule, runs each change enough', () => {
        const coverage = prepared.engine.coverage.coverage(prepared.engine.spec);
        const gaps = coverageGaps(coverage);
        if (gaps.length > 0) {
          throw new Error(`${gaps.join('\n')}\n\n${formatCoverage(coverage)}`);
        }
      });
    }
  });
}
