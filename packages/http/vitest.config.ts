import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@workforce-kit/source'] },
  ssr: { resolve: { conditions: ['@workforce-kit/source'] } },
  test: {
    name: 'http',
    // Worker threads: its tests start no process and handle no signal; a thread starts cheaper.
    pool: 'threads',
    include: ['test/**/*.test.ts'],
    // A bound for a test that hangs, not a speed check: a loaded machine takes longer.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
