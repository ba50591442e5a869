import { readFile } from 'node:fs/promises';
import { describeApiContract } from '@workforce-kit/contract-testing/vitest';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import express from 'express';

const secret = 'a-test-only-secret-of-32-characters-or-more';
const seed = JSON.parse(await readFile('seed.json', 'utf8'));
const store = createMemoryStore(parseSeed(seed, new Date())._unsafeUnwrap()); // or your own store
const auth = createJwtVerifier({ hs256Secret: secret });
const app = express().use(createRouter({ store, auth, rateLimit: false }));

describeApiContract('my app', { target: app, seed, auth: { hs256Secret: secret } });
