import { readFile } from 'node:fs/promises';
import {
  checkApiContract,
  createEventRecorder,
  formatReport,
} from '@workforce-kit/contract-testing';
import { createMemoryStore } from '@workforce-kit/core';
import { createJwtVerifier, createRouter } from '@workforce-kit/express-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import express from 'express';

const secret = 'a-test-only-secret-of-32-characters-or-more';
const seed = JSON.parse(await readFile('seed.json', 'utf8'));
const store = createMemoryStore(parseSeed(seed, new Date())._unsafeUnwrap()); // or your own store
const events = createEventRecorder(); // its record is the app's onEvent: each event, to the kit
const auth = createJwtVerifier({ hs256Secret: secret });
const app = express().use(createRouter({ store, auth, rateLimit: false, onEvent: events.record }));

// Each change's event held to the call that made it; the report counts them.
const report = await checkApiContract({ target: app, seed, auth: { hs256Secret: secret }, events });
console.log(formatReport(report));
process.exitCode = report.ok ? 0 : 1;
