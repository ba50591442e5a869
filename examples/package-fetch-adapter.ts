import { createMemoryStore } from '@workforce-kit/core';
import { createFetchHandler, createJwtVerifier } from '@workforce-kit/fetch-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import { SignJWT } from 'jose';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const seed = parseSeed(
  { restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }] },
  new Date(),
)._unsafeUnwrap();
const secret = 'a-development-secret-of-32-characters-or-more';

const api = createFetchHandler({
  store: createMemoryStore(seed),
  auth: createJwtVerifier({ hs256Secret: secret }), // or { jwksUrl, issuer, audience }
});

// A token as your identity provider issues it: the scopes, and the restaurants it may act for.
const token = await new SignJWT({ scope: 'restaurants:read', restaurants: [HARBOR] })
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('5m')
  .sign(new TextEncoder().encode(secret));

// A web Request in, a Response out: in Hono, Next.js, Bun.serve, Deno.serve, or here, in process.
const response = await api(
  new Request(`http://localhost/restaurants/v1/restaurants/${HARBOR}`, {
    headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': HARBOR },
  }),
);
const restaurant = (await response?.json()) as { general: { name: string } };
console.log(response?.status, restaurant.general.name);
// A path outside the API is yours: the handler resolves undefined.
console.log(await api(new Request('http://localhost/your/own/route')));
