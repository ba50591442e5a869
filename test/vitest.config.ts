import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'cross-package',
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**'],
  },
});
