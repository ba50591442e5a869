import { readFile } from 'node:fs/promises';
import { type HttpBindings, serve } from '@hono/node-server';
import { createMemoryStore } from '@workforce-kit/core';
import { createFetchHandler, createJwtVerifier } from '@workforce-kit/fetch-adapter';
import { formatSeedIssues, parseSeed } from '@workforce-kit/seed-file';
import { Hono } from 'hono';

const seed = parseSeed(JSON.parse(await readFile('seed.json', 'utf8')), new Date());
if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));

const api = createFetchHandler({
  store: createMemoryStore(seed.value),
  auth: createJwtVerifier({
    jwksUrl: 'https://id.example.com/.well-known/jwks.json',
    issuer: 'https://id.example.com/',
    audience: 'workforce-api',
  }),
  // Node's request under Hono's: the API reads its head and body (and the client's address)
  // from it, as the node:http adapter does, without making the web Request's.
  nodeRequest: (_request, env: HttpBindings) => env.incoming,
});

const app = new Hono<{ Bindings: HttpBindings }>();
app.get('/healthz', (c) => c.json({ status: 'ok' })); // your own routes
// The API's paths are answered by the API; any other goes on to the routes after it.
app.use(async (c, next) => (await api(c.req.raw, c.env)) ?? next());
serve({ fetch: app.fetch, port: 3000 });
