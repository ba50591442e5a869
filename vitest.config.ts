import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Test files at once: one more than the cores (vitest's default is one less, which is one file
    // at a time on two cores). Most files spend their time waiting on what they start (server
    // processes, PostgreSQL, Chromium, the packed packages' npm install), not on the CPU.
    maxWorkers: availableParallelism() + 1,
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
