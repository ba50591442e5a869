import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'types',
    // Worker threads: its tests start no process and handle no signal; a thread starts cheaper.
    pool: 'threads',
    include: ['test/**/*.test.ts'],
    typecheck: {
      enabled: true,
      include: ['test/**/*.test-d.ts'],
      tsconfig: './tsconfig.json',
    },
  },
});
