// The app serves its own routes beside the API it mounts at /api, both over the same database.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createJwtVerifier } from '@workforce-kit/express-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import seed from '../seed.json' with { type: 'json' };
import { createApp } from '../src/app.js';
import { createSchema } from '../src/schema.js';
import { createSqliteStore } from '../src/sqlite-store.js';

const VENUE = '5d0c7a1e-2b3f-4c5d-8e6f-7a8b9c0d1e2f';
const db = new Database(':memory:');
createSchema(db);
const store = createSqliteStore(db);
store.seed(parseSeed(seed, new Date())._unsafeUnwrap());
const app = createApp({
  db,
  store,
  api: { auth: createJwtVerifier({ hs256Secret: 'a-test-only-secret-of-32-characters-or-more' }) },
});
let base = '';
let server: ReturnType<typeof app.listen>;

beforeAll(async () => {
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  server.closeAllConnections();
  await store.close();
});

it("answers the app's own route from its own table", async () => {
  const response = await fetch(`${base}/venues/${VENUE}/roster`);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({
    venue: VENUE,
    shifts: [
      {
        id: '3d4e5f6a-7b8c-4d9e-8f0a-2b3c4d5e6f7a',
        worker: '1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e',
        starts: '2026-03-01T07:00:00.000Z',
        ends: '2026-03-01T15:00:00.000Z',
      },
    ],
  });
});

it('answers under /api as the API: a request without a token is 401 problem details', async () => {
  const response = await fetch(`${base}/api/restaurants/v1/restaurants/${VENUE}`, {
    headers: { 'Platform-Restaurant-External-ID': VENUE },
  });
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(((await response.json()) as { code: string }).code).toBe('INVALID_TOKEN');
});
