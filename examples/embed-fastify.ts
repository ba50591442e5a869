import { readFile } from 'node:fs/promises';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, fastifyOptions, workforceKit } from '@workforce-kit/fastify-adapter';
import { formatSeedIssues, parseSeed } from '@workforce-kit/seed-file';
import Fastify from 'fastify';

const seed = parseSeed(JSON.parse(await readFile('seed.json', 'utf8')), new Date());
if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));

// fastifyOptions: rewriteUrl and a router maxParamLength that fits every identifier, which a
// plugin cannot set itself. Add your own options beside them.
const app = Fastify({ ...fastifyOptions, logger: true });
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
