import { readFile } from 'node:fs/promises';
import { createEventRecorder } from '@workforce-kit/contract-testing';
import { describeApiContract } from '@workforce-kit/contract-testing/vitest';
import { createJwtVerifier } from '@workforce-kit/express-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import Database from 'better-sqlite3';
import { createApp } from '../src/app.js';
import { createSchema } from '../src/schema.js';
import { createSqliteStore } from '../src/sqlite-store.js';

const secret = 'a-test-only-secret-of-32-characters-or-more';
const seed = JSON.parse(await readFile(new URL('../seed.json', import.meta.url), 'utf8'));
const records = parseSeed(seed, new Date())._unsafeUnwrap();

// One app over one database; before each stateful run the kit calls reset, which empties the
// app's tables and seeds them again: a fresh, seeded database for each run.
const db = new Database(':memory:');
createSchema(db);
const store = createSqliteStore(db);
const reset = () => {
  db.exec('DELETE FROM staff_jobs; DELETE FROM staff_wages; DELETE FROM staff;');
  db.exec('DELETE FROM roster_shifts; DELETE FROM venues; DELETE FROM outbox;');
  return store.seed(records);
};
reset();
// The app's events go to the kit's recorder: the kit holds each change's event to its call.
const events = createEventRecorder();
const app = createApp({
  db,
  store,
  api: {
    auth: createJwtVerifier({ hs256Secret: secret }),
    rateLimit: false,
    onEvent: events.record,
  },
});

// The API is mounted at /api, beside the app's own routes: the kit sends its requests there.
describeApiContract('the app, its API at /api over its own SQLite tables', {
  target: { handler: app, reset },
  basePath: '/api',
  seed,
  auth: { hs256Secret: secret },
  events,
});
