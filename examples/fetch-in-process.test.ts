import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createMemoryStore } from '@workforce-kit/core';
import { createFetchHandler, createJwtVerifier } from '@workforce-kit/fetch-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import { SignJWT } from 'jose';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const MARIA = '6a2b9c4d-1e3f-4a5b-8c7d-9e0f1a2b3c4d';
const secret = 'a-test-only-secret-of-32-characters-or-more';
const seed = parseSeed(
  {
    restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }],
    employees: [
      { guid: MARIA, restaurantGuid: HARBOR, firstName: 'Maria', lastName: 'Lopez', deleted: true },
    ],
  },
  new Date(),
)._unsafeUnwrap();
// No server, no port: the test calls the handler with a Request, as a host would.
const api = createFetchHandler({
  store: createMemoryStore(seed),
  auth: createJwtVerifier({ hs256Secret: secret }),
});

test('unarchives Maria', async () => {
  const token = await new SignJWT({ scope: 'labor.employees:write', restaurants: [HARBOR] })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(secret));
  const response = await api(
    new Request(`http://localhost/labor/v1/employees/${MARIA}/unarchive`, {
      method: 'PUT',
      headers: {
        Authorization: `Bearer ${token}`,
        'Platform-Restaurant-External-ID': HARBOR,
        'Content-Type': 'application/json',
      },
      body: '{}',
    }),
  );
  assert.equal(response?.status, 200);
  const employee = (await response?.json()) as { guid: string; deleted: boolean };
  assert.deepEqual([employee.guid, employee.deleted], [MARIA, false]);
});
