import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, workforceKit } from '@workforce-kit/fastify-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import Fastify from 'fastify';
import { SignJWT } from 'jose';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const seed = parseSeed(
  { restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }] },
  new Date(),
)._unsafeUnwrap();
const secret = 'a-development-secret-of-32-characters-or-more';

const app = Fastify();
await app.register(workforceKit, {
  prefix: '/api', // any prefix; the paths outside the API stay yours
  store: createMemoryStore(seed),
  auth: createJwtVerifier({ hs256Secret: secret }), // or { jwksUrl, issuer, audience }
});

// A token as your identity provider issues it: the scopes, and the restaurants it may act for.
const token = await new SignJWT({ scope: 'restaurants:read', restaurants: [HARBOR] })
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('5m')
  .sign(new TextEncoder().encode(secret));
const response = await app.inject({
  method: 'GET',
  url: `/api/restaurants/v1/restaurants/${HARBOR}`,
  headers: { authorization: `Bearer ${token}`, 'platform-restaurant-external-id': HARBOR },
});
console.log(response.statusCode, response.json().general.name);
await app.close();
