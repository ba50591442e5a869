import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@workforce-kit/source'] },
  ssr: { resolve: { conditions: ['@workforce-kit/source'] } },
  test: {
    name: 'cross-package',
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**'],
  },
});
