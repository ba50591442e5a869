import { readFile } from 'node:fs/promises';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, workforceKit } from '@workforce-kit/fastify-adapter';
import { formatSeedIssues, parseSeed } from '@workforce-kit/seed-file';
import Fastify from 'fastify';

const seed = parseSeed(JSON.parse(await readFile('seed.json', 'utf8')), new Date());
if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));

// Your instance, your options: the plugin needs none of them.
const app = Fastify({ logger: true });
await app.register(workforceKit, {
  prefix: '/api', // any prefix; paths outside the API stay yours
  store: createMemoryStore(seed.value),
  auth: createJwtVerifier({
    jwksUrl: 'https://id.example.com/.well-known/jwks.json',
    issuer: 'https://id.example.com/',
    audience: 'workforce-api',
  }),
});
await app.listen({ port: 3000 });
