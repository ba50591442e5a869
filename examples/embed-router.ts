import { readFile } from 'node:fs/promises';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
import { formatSeedIssues, parseSeed } from '@workforce-kit/seed-file';
import express from 'express';

// Records to start with, in the seed format (see packages/server/seed/demo-seed.json).
const seed = parseSeed(JSON.parse(await readFile('seed.json', 'utf8')), new Date());
if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));

const router = createRouter({
  store: createMemoryStore(seed.value), // or any store implementing the core's ports
  auth: createJwtVerifier({
    jwksUrl: 'https://id.example.com/.well-known/jwks.json',
    issuer: 'https://id.example.com/',
    audience: 'workforce-api',
  }),
  onEvent: (event) => console.log(event.type, event.eventId), // after each committed change
});
await router.ready;

const app = express();
app.use('/api', router); // any prefix; paths outside the API stay yours
app.listen(3000);
