import { defineProject } from 'vitest/config';

// The packages as users get them: packed, installed with npm outside the workspace, then used.
// It rebuilds every package's dist/ (pnpm pack runs the builds), which the other tests read, so
// it runs after all of them (a later group), on its own.
export default defineProject({
  test: {
    name: 'packaging',
    include: ['**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    sequence: { groupOrder: 1 },
  },
});
