import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, createRequestHandler } from '@workforce-kit/node-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import { createClient, getRestaurant, openapiDocument } from '@workforce-kit/types';
import { SignJWT } from 'jose';

// The spec as an object.
console.log(openapiDocument.info.title, Object.keys(openapiDocument.paths).length, 'paths');

// An API to call: served here in the process; point baseUrl at your deployment instead.
const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const secret = 'a-development-secret-of-32-characters-or-more';
const seed = parseSeed(
  { restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }] },
  new Date(),
)._unsafeUnwrap();
const handler = createRequestHandler({
  store: createMemoryStore(seed),
  auth: createJwtVerifier({ hs256Secret: secret }),
});
const server = createServer((req, res) => handler(req, res));
server.listen(0, '127.0.0.1');
await once(server, 'listening');

// The typed SDK: one function per operation, its path, query, headers and answers typed.
const token = await new SignJWT({ scope: 'restaurants:read', restaurants: [HARBOR] })
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('5m')
  .sign(new TextEncoder().encode(secret));
const client = createClient({
  baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  auth: () => token,
});
const { data, response } = await getRestaurant({
  client,
  path: { restaurantGUID: HARBOR },
  headers: { 'Platform-Restaurant-External-ID': HARBOR },
});
console.log(response.status, data?.general.name); // data: the restaurant, typed
server.close();
