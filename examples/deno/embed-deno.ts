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
  auth: createJwtVerifier({ hs256Secret: secret }),
  // The socket's address, for the rate limits of a request that names no restaurant.
  getClientAddress: (_request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) =>
    info.remoteAddr.hostname,
});

const server = Deno.serve(
  { hostname: '127.0.0.1', port: 0, onListen() {} }, // any free port; yours: 3000, say
  async (request, info) => (await api(request, info)) ?? new Response('Not Found', { status: 404 }),
);
const base = `http://127.0.0.1:${server.addr.port}`;

const token = await new SignJWT({ scope: 'restaurants:read', restaurants: [HARBOR] })
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('5m')
  .sign(new TextEncoder().encode(secret));
const response = await fetch(`${base}/restaurants/v1/restaurants/${HARBOR}`, {
  headers: { Authorization: `Bearer ${token}`, 'Platform-Restaurant-External-ID': HARBOR },
});
const restaurant = (await response.json()) as { general: { name: string } };
console.log(response.status, restaurant.general.name);
console.log((await fetch(`${base}/your/own/route`)).status);
await server.shutdown();
