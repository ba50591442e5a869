import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, createRequestHandler } from '@workforce-kit/node-adapter';
import { formatSeedIssues, parseSeed } from '@workforce-kit/seed-file';

const seed = parseSeed(JSON.parse(await readFile('seed.json', 'utf8')), new Date());
if (seed.isErr()) throw new Error(formatSeedIssues(seed.error));

const api = createRequestHandler({
  store: createMemoryStore(seed.value),
  auth: createJwtVerifier({
    jwksUrl: 'https://id.example.com/.well-known/jwks.json',
    issuer: 'https://id.example.com/',
    audience: 'workforce-api',
  }),
});

// Paths outside the API go to `next`: here, your own routes. Without `next`, they are a 404.
createServer((req, res) =>
  api(req, res, () => {
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end('your own routes');
  }),
).listen(3000);
