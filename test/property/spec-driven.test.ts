// The spec-driven properties, run by the contract kit (@workforce-kit/contract-testing) as a user
// runs it: against the API of each adapter (Express, Fastify) over the memory store, here with
// response validation on (a response that does not match the spec would be a 500, which the kit
// reports). The kit generates the requests from openapi/openapi.yaml and holds every answer to
// it; each stateful run starts on a fresh store of the seed (`reset`), and so does each case of
// concurrent changes; a last test holds the run to full coverage. The world: three restaurants (one archived), each with
// employees archived and not, and shifts, one external id shared by all three.

import { describeApiContract } from '@workforce-kit/contract-testing/vitest';
import { createMemoryStore, type ExternalId, type MemoryStore } from '@workforce-kit/core';
import {
  anArchivedEmployee,
  anEmployee,
  aRestaurant,
  aShift,
  delegatingStore,
} from '@workforce-kit/core/testing';
import { type ApiOptions, createJwtVerifier } from '@workforce-kit/http';
import { aSeed, seedToJson } from '@workforce-kit/seed-file/testing';
import { ADAPTERS } from '../support/adapters.js';

const SECRET = 'spec-driven-property-secret-0123456789abcdef';
const ISSUER = 'https://id.example.com/';
const AUDIENCE = 'workforce-api';

const restaurants = [
  aRestaurant(),
  aRestaurant({ general: { name: 'Noodle Bar', archived: false } }),
  aRestaurant({ general: { name: 'Closed Kitchen', archived: true } }),
];
const seed = aSeed({
  restaurants,
  employees: restaurants.flatMap((r) => [
    anEmployee(r.guid, { externalId: `PAYROLL:${r.guid.slice(0, 6)}` as ExternalId }),
    anArchivedEmployee(r.guid),
    anArchivedEmployee(r.guid, { firstName: 'Jon' }),
  ]),
  shifts: restaurants.flatMap((r) => [
    // The same external id in every restaurant: only the context's shift answers to it.
    aShift(r.guid, { externalId: 'SCHEDULER:shift-1' as ExternalId }),
    aShift(r.guid, {
      externalId: `POS:${r.guid.slice(0, 8)}` as ExternalId,
      deleted: true,
      deletedDate: '2026-02-01T00:00:00.000Z',
    }),
    aShift(r.guid),
  ]),
});

let store: MemoryStore = createMemoryStore(seed);
const options: ApiOptions = {
  store: delegatingStore(() => store),
  auth: createJwtVerifier({ hs256Secret: SECRET, issuer: ISSUER, audience: AUDIENCE }),
  validateResponses: true,
  rateLimit: false,
};

for (const adapter of ADAPTERS) {
  describeApiContract(`the API over the memory store, responses validated, on ${adapter.name}`, {
    target: {
      handler: await adapter.handler(options),
      reset: () => {
        store = createMemoryStore(seed);
      },
    },
    seed: seedToJson(seed) as Record<string, unknown>,
    auth: { hs256Secret: SECRET, issuer: ISSUER, audience: AUDIENCE },
    only: ['stateless', 'stateful', 'auth', 'concurrent'],
    runs: 150,
    // A last test: every declared status the kit can provoke seen, every rule checked (the
    // isolation group's rules too: the other groups' requests name other restaurants' records).
    minCoverage: true,
  });
}
