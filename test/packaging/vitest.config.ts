import { defineProject } from 'vitest/config';

// The packages as users get them: packed, installed with npm outside the workspace, then used.
// It packs in a copy of the workspace (pnpm pack rebuilds dist/), so it runs beside the other
// test files.
export default defineProject({
  test: {
    name: 'packaging',
    include: ['**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
  },
});
