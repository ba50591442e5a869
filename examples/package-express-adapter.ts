import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import express from 'express';
import { SignJWT } from 'jose';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const seed = parseSeed(
  { restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }] },
  new Date(),
)._unsafeUnwrap();
const secret = 'a-development-secret-of-32-characters-or-more';

const router = createRouter({
  store: createMemoryStore(seed),
  auth: createJwtVerifier({ hs256Secret: secret }), // or { jwksUrl, issuer, audience }
});
await router.ready;
const app = express();
app.use('/api', router); // any prefix; the paths outside the API stay yours
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const { port } = server.address() as AddressInfo;

// A token as your identity provider issues it: the scopes, and the restaurants it may act for.
const token = await new SignJWT({ scope: 'restaurants:read', restaurants: [HARBOR] })
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('5m')
  .sign(new TextEncoder().encode(secret));
const response = await fetch(`http://127.0.0.1:${port}/api/restaurants/v1/restaurants/${HARBOR}`, {
  headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': HARBOR },
});
const restaurant = (await response.json()) as { general: { name: string } };
console.log(response.status, restaurant.general.name);
server.close();
