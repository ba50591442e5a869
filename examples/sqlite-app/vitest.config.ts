import { defineProject } from 'vitest/config';

// The tests of the example app: its store under the core's conformance suite (and again with each
// bug switched on), its API under the contract kit, its own route beside the API.
export default defineProject({
  resolve: { conditions: ['@workforce-kit/source'] },
  ssr: { resolve: { conditions: ['@workforce-kit/source'] } },
  test: {
    name: 'sqlite-app',
    include: ['test/**/*.test.ts'],
    // A bound for a test that hangs, not a speed check: a loaded machine takes longer.
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
