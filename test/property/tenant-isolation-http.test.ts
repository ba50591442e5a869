// Tenant isolation over real HTTP, on each adapter (Express, Fastify), run by the contract kit:
// restaurant A's records (employees archived and not, shifts with external identifiers, one of
// them shared with B) must never be read, changed or mentioned by a request in another
// restaurant's context, whatever identifiers it tries (A's GUIDs in any letter case, A's external
// ids, the shared one), nor by one in A's context with a token that does not name A. A's names
// are marked so that a mention of them cannot be a coincidence. Each run starts on a fresh store
// of the seed.

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

const SECRET = 'tenant-isolation-http-secret-0123456789abcdef';
const shared = 'SCHEDULER:shared-1' as ExternalId;

const a = aRestaurant({ general: { name: 'Quartermaine Oyster House', archived: false } });
const b = aRestaurant({ general: { name: 'Noodle Bar', archived: false } });
const c = aRestaurant({ general: { name: 'Closed Kitchen', archived: true } });
const seed = aSeed({
  restaurants: [a, b, c],
  employees: [
    anEmployee(a.guid, { firstName: 'Ophelia', lastName: 'Quartermaine-0', externalId: shared }),
    anArchivedEmployee(a.guid, {
      firstName: 'Ophelia',
      lastName: 'Quartermaine-1',
      email: 'ophelia.1@quartermaine.example',
      externalId: 'QZPAYROLL:a-1' as ExternalId,
    }),
    anEmployee(b.guid, { externalId: shared }),
    anArchivedEmployee(b.guid, { externalId: 'PAYROLL:b-1' as ExternalId }),
    anArchivedEmployee(c.guid),
  ],
  shifts: [
    aShift(a.guid, { externalId: shared }),
    aShift(a.guid, { externalId: 'QZPOS:a-2' as ExternalId }),
    aShift(a.guid, {
      externalId: 'QZPOS:a-3' as ExternalId,
      deleted: true,
      deletedDate: '2026-02-01T00:00:00.000Z',
    }),
    aShift(b.guid, { externalId: shared }),
    aShift(b.guid, { externalId: 'POS:b-2' as ExternalId }),
  ],
});

let store: MemoryStore = createMemoryStore(seed);
const options: ApiOptions = {
  store: delegatingStore(() => store),
  auth: createJwtVerifier({ hs256Secret: SECRET }),
  validateResponses: true,
  rateLimit: false,
};

for (const adapter of ADAPTERS) {
  describeApiContract(`tenant isolation over HTTP, on ${adapter.name}`, {
    target: {
      handler: await adapter.handler(options),
      reset: () => {
        store = createMemoryStore(seed);
      },
    },
    seed: seedToJson(seed) as Record<string, unknown>,
    auth: { hs256Secret: SECRET },
    only: ['isolation', 'auth'],
    runs: 300,
  });
}
