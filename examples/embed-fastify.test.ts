import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, test } from 'node:test';
import { checkApiContract } from '@workforce-kit/contract-testing';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, frameworkErrors, workforceKit } from '@workforce-kit/fastify-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import Fastify, { type FastifyInstance } from 'fastify';

const secret = 'a-test-only-secret-of-32-characters-or-more';
const seed = JSON.parse(await readFile(new URL('./seed.json', import.meta.url), 'utf8')); // the test's records

// The app as it runs (your own buildApp), over a memory store loaded with the test's records.
async function buildApp(): Promise<FastifyInstance> {
  const app = Fastify({ frameworkErrors: frameworkErrors() });
  await app.register(workforceKit, {
    prefix: '/api',
    store: createMemoryStore(parseSeed(seed, new Date())._unsafeUnwrap()),
    auth: createJwtVerifier({ hs256Secret: secret }),
    rateLimit: false, // the kit sends more than the default 20 requests a second
  });
  return app;
}

let current: FastifyInstance | undefined;
after(() => current?.close());

test('keeps the contract, as the app serves the API', async () => {
  const report = await checkApiContract({
    // A new app for each run of the stateful properties, so that each starts from the seed. The
    // kit takes a request listener: a Fastify instance's is app.routing, once the app is ready.
    target: {
      factory: async () => {
        const app = await buildApp();
        await app.ready();
        await current?.close(); // the previous run's app
        current = app;
        return app.routing;
      },
    },
    basePath: '/api', // where the app mounts the API
    seed,
    auth: { hs256Secret: secret },
    runs: 25, // fewer than the 100 by default, for a quick test
  });
  const failed = report.results.filter((result) => result.status === 'failed');
  assert.deepEqual(failed, []);
});
