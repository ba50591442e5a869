import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { SlowestFilesReporter } from './scripts/slowest-test-files.mjs';

/**
 * The test files that take longest, longest first (from a run of `npm test`: the slowest files it
 * prints at its end say when this list is out of date). They start first, so that the shorter
 * files fill the workers meanwhile instead of one long file running alone at the end; vitest would
 * otherwise order a fresh clone's files by project name and size.
 */
export const LONGEST_FIRST = [
  'test/packaging/installed-packages.test.ts',
  'test/security/adversarial.test.ts',
  'packages/contract-testing/test/cli-reference-server.test.ts',
  'packages/contract-testing/test/mutation-suite.test.ts',
  'test/e2e/reference-server.test.ts',
  'test/webhooks/webhooks-scale-out.test.ts',
  'test/scale-out/events-faults.test.ts',
  'test/e2e/observability.test.ts',
  'test/property/spec-driven.test.ts',
  'packages/contract-testing/test/concurrent-no-false-alarms.test.ts',
  'test/http/behaviour.test.ts',
  'packages/server/test/server.test.ts',
  'test/pglite/kill-under-load.test.ts',
  'test/property/tenant-isolation-http.test.ts',
  'test/http/observability.test.ts',
  'packages/postgres/test/outbox-relay.test.ts',
  'packages/contract-testing/test/kit-memory.test.ts',
  'test/scale-out/postgres-scale-out.test.ts',
  'test/http/rate-limit.test.ts',
  'packages/postgres/test/group-commit-store.test.ts',
  'packages/contract-testing/test/cli-exit-codes.test.ts',
];

/**
 * Vitest's order, with {@link LONGEST_FIRST} moved to the front, in its order (the sort is stable:
 * the other files keep vitest's order).
 */
class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return index < 0 ? LONGEST_FIRST.length : index;
    };
    return (await super.sort(files)).sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        rank(a) - rank(b),
    );
  }
}

export default defineConfig({
  test: {
    // Test files at once: one more than the cores (vitest's default is one less, which is one file
    // at a time on two cores). Most files spend their time waiting on what they start (server
    // processes, PostgreSQL, Chromium, the packed packages' npm install), not on the CPU.
    maxWorkers: availableParallelism() + 1,
    sequence: { sequencer: LongestFirstSequencer },
    // The slowest files of a run, at its end (`pnpm check` prints those of all its runs).
    reporters: ['default', new SlowestFilesReporter()],
    projects: [
      'packages/*/vitest.config.ts',
      'examples/sqlite-app/vitest.config.ts',
      'test/vitest.config.ts',
      'test/packaging/vitest.config.ts',
    ],
    coverage: {
      provider: 'v8',
      // The domain rules and the seed file's; the test support in testing/ is exercised but not
      // measured. `pnpm test:all` takes it in the tests of core and seed-file only
      // (scripts/test-all.mjs).
      include: ['packages/core/src/**/*.ts', 'packages/seed-file/src/**/*.ts'],
      exclude: ['packages/core/src/testing/**', 'packages/seed-file/src/testing/**'],
      reporter: ['text', 'text-summary'],
      thresholds: { lines: 98, branches: 95, functions: 98, statements: 98 },
    },
  },
});
