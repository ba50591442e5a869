import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@workforce-kit/source'] },
  ssr: { resolve: { conditions: ['@workforce-kit/source'] } },
  test: {
    name: 'contract-testing',
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
