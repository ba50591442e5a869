// The reference router (createRouter of @workforce-kit/express-adapter) over the memory store of
// @workforce-kit/core, loaded from the demo seed, as an in-process target of the kit: one app, and
// a reset that puts a freshly seeded store behind it. The hooks let a test break it on purpose:
// a wrapper around the store, middleware before the router, a wrapper around the verifier; the
// settings give it a clock of the test's, rate limits (none by default) and where its events go.
import {
  type Clock,
  createMemoryStore,
  type MemoryStore,
  type RecordedEvent,
} from '@workforce-kit/core';
import { delegatingStore } from '@workforce-kit/core/testing';
import {
  type AccessTokenVerifier,
  type ApiStore,
  createJwtVerifier,
  createRouter,
  type RateLimitOptions,
} from '@workforce-kit/express-adapter';
import { formatSeedIssues, parseSeed, type Seed } from '@workforce-kit/seed-file';
import express, { type RequestHandler } from 'express';
import { pino } from 'pino';
import { AUDIENCE, demoSeedJson, ISSUER, SECRET } from './demo-seed.js';

export { AUDIENCE, AUTH, DEMO_SEED_FILE, demoSeedJson, ISSUER, SECRET } from './demo-seed.js';

export function seedOf(json: unknown): Seed {
  const seed = parseSeed(json, new Date());
  if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));
  return seed.value;
}

export interface BreakHooks {
  /** Wraps the store the router uses. */
  readonly store?: (store: ApiStore, seed: Seed) => ApiStore;
  /** Middleware mounted before the router. */
  readonly before?: readonly RequestHandler[];
  /** Wraps the token verifier. */
  readonly auth?: (verifier: AccessTokenVerifier) => AccessTokenVerifier;
}

/** The router's own settings. */
export interface RouterSettings {
  /** The time source of its changes. @default the system clock */
  readonly clock?: Clock;
  /** Its rate limits. @default none */
  readonly rateLimit?: RateLimitOptions;
  /** Where its events go, after each committed change. @default nowhere */
  readonly onEvent?: (event: RecordedEvent) => void;
}

export interface RouterTarget {
  readonly handler: express.Express;
  reset(): void;
  /** The store of the current run. */
  readonly store: MemoryStore;
}

/** The router over a memory store of `seedJson` (the demo seed by default), broken by `hooks`. */
export async function routerTarget(
  hooks: BreakHooks = {},
  seedJson: unknown = demoSeedJson,
  { clock, rateLimit, onEvent }: RouterSettings = {},
): Promise<RouterTarget> {
  const seed = seedOf(seedJson);
  let store = createMemoryStore(seed);
  const base = delegatingStore(() => store);
  const verifier = createJwtVerifier({ hs256Secret: SECRET, issuer: ISSUER, audience: AUDIENCE });
  const router = createRouter({
    store: hooks.store?.(base, seed) ?? base,
    auth: hooks.auth?.(verifier) ?? verifier,
    rateLimit: rateLimit ?? false,
    ...(clock === undefined ? {} : { clock }),
    ...(onEvent === undefined ? {} : { onEvent }),
    // The 500s some mutants cause would fill the test output.
    logger: pino({ level: 'silent' }),
  });
  await router.ready;
  const app = express();
  app.disable('x-powered-by');
  for (const middleware of hooks.before ?? []) app.use(middleware);
  app.use(router);
  return {
    handler: app,
    reset() {
      store = createMemoryStore(seed);
    },
    get store() {
      return store;
    },
  };
}
