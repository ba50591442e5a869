import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier } from '@workforce-kit/http';
import { createApi } from '@workforce-kit/http/adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import { SignJWT } from 'jose';

const HARBOR = 'b7f1c3a2-4e5d-4f60-8a9b-0c1d2e3f4a5b';
const seed = parseSeed(
  { restaurants: [{ guid: HARBOR, general: { name: 'Harbor Street Kitchen', archived: false } }] },
  new Date(),
)._unsafeUnwrap();
const secret = 'a-development-secret-of-32-characters-or-more';

// The pipeline every adapter runs: plain request data in, a plain answer out, no HTTP server.
const api = createApi({
  store: createMemoryStore(seed),
  auth: createJwtVerifier({ hs256Secret: secret }),
});

// A token as an identity provider issues it: the scopes, and the restaurants it may act for.
const token = await new SignJWT({ scope: 'restaurants:read', restaurants: [HARBOR] })
  .setProtectedHeader({ alg: 'HS256' })
  .setExpirationTime('5m')
  .sign(new TextEncoder().encode(secret));

for (const authorization of [`Bearer ${token}`, 'Bearer not-a-token']) {
  const answer = await api.handle({
    method: 'GET',
    url: `/restaurants/v1/restaurants/${HARBOR}`,
    headers: { authorization, 'platform-restaurant-external-id': HARBOR },
    address: '127.0.0.1',
    body: { parsed: undefined },
  });
  if (answer === undefined) continue; // a path outside the API: the host's
  // The headers as Node's writeHead takes them: [name, value, name, value, …].
  const type = answer.headers[answer.headers.indexOf('Content-Type') + 1];
  const body = JSON.parse(answer.body);
  console.log(answer.status, type, body.general?.name ?? body.code);
}
