// Every status of every operation, over real HTTP to each adapter's app (the suite:
// support/statuses-suite.ts; on Bun and Deno: test/runtimes).
import { afterAll } from 'vitest';
import { ADAPTERS, type AppSettings, closeApps, testApp } from './support/harness.js';
import { describeStatuses } from './support/statuses-suite.js';

afterAll(closeApps);

for (const adapter of ADAPTERS) {
  describeStatuses({
    name: adapter.name,
    app: (settings: AppSettings = {}) => testApp(adapter, settings),
  });
}
