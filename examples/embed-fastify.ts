import { readFile } from 'node:fs/promises';
import { createMemoryStore, formatSeedIssues, parseSeed } from '@workforce-kit/core';
import { createJwtVerifier, rewriteUrl, workforceKit } from '@workforce-kit/fastify-adapter';
import Fastify from 'fastify';

const seed = parseSeed(JSON.parse(await readFile('seed.json', 'utf8')), new Date());
if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));

// rewriteUrl: a path that does not percent-decode gets the API's 400 (after the token check).
const app = Fastify({ rewriteUrl });
await app.register(workforceKit, {
  prefix: '/api', // any prefix; the plugin's hooks apply to its own routes only
  store: createMemoryStore(seed.value),
  auth: createJwtVerifier({
    jwksUrl: 'https://id.example.com/.well-known/jwks.json',
    issuer: 'https://id.example.com/',
    audience: 'workforce-api',
  }),
});
await app.listen({ port: 3000 });
