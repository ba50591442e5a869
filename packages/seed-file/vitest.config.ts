import { defineProject } from 'vitest/config';

export default defineProject({
  resolve: { conditions: ['@workforce-kit/source'] },
  ssr: { resolve: { conditions: ['@workforce-kit/source'] } },
  test: { name: 'seed-file', include: ['test/**/*.test.ts'] },
});
