import { checkApiContract } from '@workforce-kit/contract-testing';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, createRequestHandler } from '@workforce-kit/node-adapter';
import { parseSeed } from '@workforce-kit/seed-file';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
// The records the target starts with: the kit reads the restaurants, employees and shifts here.
const seed = {
  restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }],
  employees: [
    { restaurantGuid: HARBOR, guid: '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d', deleted: true },
  ],
  shifts: [
    {
      restaurantGuid: HARBOR,
      guid: '9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f',
      externalId: 'SCHEDULER:42',
    },
  ],
};
const secret = 'a-test-only-secret-of-32-characters-or-more';

// The target: any node:http listener (served on a loopback port), an app, or a base URL.
const target = createRequestHandler({
  store: createMemoryStore(parseSeed(seed, new Date())._unsafeUnwrap()),
  auth: createJwtVerifier({ hs256Secret: secret }),
  rateLimit: false,
});

const report = await checkApiContract({
  target,
  seed,
  auth: { hs256Secret: secret },
  runs: 5, // per property; the default is 100
  rngSeed: 42, // a run is repeatable
  only: ['stateless', 'auth'],
});
console.log(report.ok, `${report.failed} failed`);
