import 'reflect-metadata';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, test } from 'node:test';
import { Test } from '@nestjs/testing';
import { checkApiContract } from '@workforce-kit/contract-testing';
import { createMemoryStore } from '@workforce-kit/core';
import { parseSeed } from '@workforce-kit/seed-file';
import { SignJWT } from 'jose';
import request from 'supertest';
import { AppModule, SETTINGS, type Settings, STORE } from './embed-nestjs.js';

const secret = 'a-test-only-secret-of-32-characters-or-more';
const seed = JSON.parse(await readFile(new URL('./seed.json', import.meta.url), 'utf8')); // the test's records
const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';

// The app as it runs, but for its providers: test settings, and a memory store for its database.
const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
  .overrideProvider(SETTINGS)
  .useValue({
    databaseUrl: '',
    jwt: { hs256Secret: secret },
    rateLimit: false,
    adminKey: 'test-admin-key',
  } satisfies Settings)
  .overrideProvider(STORE)
  .useValue(createMemoryStore(parseSeed(seed, new Date())._unsafeUnwrap()))
  .compile();
const app = moduleRef.createNestApplication({ logger: false });
app.setGlobalPrefix('api');
await app.listen(0, '127.0.0.1');
after(() => app.close());

test('guards its own routes', async () => {
  await request(app.getHttpServer()).get('/api/admin/status').expect(403);
  await request(app.getHttpServer())
    .get('/api/admin/status')
    .set('x-admin-key', 'test-admin-key')
    .expect(200, { status: 'ok' });
});

test('serves the API under its path, behind bearer tokens rather than the guard', async () => {
  const token = await new SignJWT({ scope: 'restaurants:read', restaurants: [HARBOR] })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(secret));
  const path = `/api/workforce/restaurants/v1/restaurants/${HARBOR}`;
  await request(app.getHttpServer())
    .get(path)
    .set('Platform-Restaurant-External-ID', HARBOR)
    .expect(401)
    .expect('Content-Type', 'application/problem+json; charset=utf-8');
  const found = await request(app.getHttpServer())
    .get(path)
    .set({ Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': HARBOR })
    .expect(200);
  assert.equal(found.body.general.name, 'Harbor Street Kitchen');
});

test('keeps the contract, as the app serves the API', async () => {
  const report = await checkApiContract({
    target: `${await app.getUrl()}/api/workforce`, // the base URL of the API, prefix included
    seed,
    auth: { hs256Secret: secret },
    runs: 25, // fewer than the 100 by default, for a quick test
  });
  const failed = report.results.filter((result) => result.status === 'failed');
  assert.deepEqual(failed, []);
});
