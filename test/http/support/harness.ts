// Test support of the HTTP-level suite: the API of an adapter over a seeded memory store, served
// over real HTTP, with response validation on, a logger that keeps every line, and tokens
// (@workforce-kit/http/testing's).
import { createMemoryStore, type MemoryStore } from '@workforce-kit/core';
import { type ApiOptions, createJwtVerifier } from '@workforce-kit/http';
import { TEST_SECRET } from '@workforce-kit/http/testing';
import { pino } from 'pino';
import type { Adapter, Served } from '../../support/adapters.js';
import { type Fault, faultOptions } from './faults.js';
import { aWorld, type World } from './world.js';

export { tokenFor } from '@workforce-kit/http/testing';
export { ADAPTERS, type Adapter } from '../../support/adapters.js';
export { type AppSettings, FAULTS, type Fault } from './faults.js';
export { aWorld, type World } from './world.js';

export interface TestApp {
  /** The app's base URL, for `request(url)`. */
  readonly url: string;
  readonly store: MemoryStore;
  readonly world: World;
  /** Every log line written, parsed. */
  readonly logs: Record<string, unknown>[];
}

const serving = new Set<Served>();

/**
 * The adapter's app with the API at the root, listening: response validation on, a test logger,
 * over a memory store of `world`, with the fault named (see faults.ts) and the options given.
 * Stop every app a test file started with {@link closeApps}.
 */
export async function testApp(
  adapter: Adapter,
  { fault, ...overrides }: Partial<ApiOptions> & { readonly fault?: Fault } = {},
  world: World = aWorld(),
): Promise<TestApp> {
  const store = createMemoryStore(world.seed);
  const logs: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => logs.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const served = await adapter.serve({
    store,
    auth: createJwtVerifier({ hs256Secret: TEST_SECRET }),
    validateResponses: true,
    logger,
    ...faultOptions(fault, store),
    ...overrides,
  });
  serving.add(served);
  return { url: served.url, store, world, logs };
}

/** Closes every app {@link testApp} started (in the file's `afterAll`). */
export async function closeApps(): Promise<void> {
  const apps = [...serving];
  serving.clear();
  await Promise.all(apps.map((app) => app.close()));
}
