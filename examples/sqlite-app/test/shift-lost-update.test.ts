// The app's store with its shift writes skipping the version check (the bug switch
// shift-no-version-check), each of its calls answered 2 ms late as a networked database's are: two
// overlapping deletes of one shift both write. The app dates its changes in whole seconds (as a
// TIMESTAMP(0) column would), so both deletes answer the same deletedDate and the answers fit an
// order, as they do for any two that decide in the same millisecond. The contract kit, with the
// app's events sent to it and the app's own seed (two shifts to race), catches it by the events:
// two shift.deleted for one change.
import { readFile } from 'node:fs/promises';
import {
  checkApiContract,
  createEventRecorder,
  formatReport,
} from '@workforce-kit/contract-testing';
import type { MaybeAsync, WorkforceStore } from '@workforce-kit/core';
import { createJwtVerifier } from '@workforce-kit/express-adapter';
import { parseSeed } from '@workforce-kit/seed-file';
import Database from 'better-sqlite3';
import { expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createSchema } from '../src/schema.js';
import { createSqliteStore } from '../src/sqlite-store.js';

const secret = 'a-test-only-secret-of-32-characters-or-more';
const seed = JSON.parse(await readFile(new URL('../seed.json', import.meta.url), 'utf8'));

/** `call`'s answer, given 2 ms after it is made (what it read is what the database held then). */
const late =
  <A extends unknown[], R>(call: (...args: A) => MaybeAsync<R>) =>
  (...args: A): Promise<R> => {
    const answer = call(...args);
    return new Promise((resolve) => setTimeout(() => resolve(answer as R | PromiseLike<R>), 2));
  };

it('catches shift writes without the version check by their events, with the app’s own seed', async () => {
  const db = new Database(':memory:');
  createSchema(db);
  const sqlite = createSqliteStore(db, { bugs: ['shift-no-version-check'] });
  const store: WorkforceStore = {
    ...sqlite,
    employees: { find: late(sqlite.employees.find), write: late(sqlite.employees.write) },
    shifts: { find: late(sqlite.shifts.find), write: late(sqlite.shifts.write) },
  };
  const records = parseSeed(seed, new Date())._unsafeUnwrap();
  const reset = () => {
    db.exec('DELETE FROM staff_jobs; DELETE FROM staff_wages; DELETE FROM staff;');
    db.exec('DELETE FROM roster_shifts; DELETE FROM venues; DELETE FROM outbox;');
    return sqlite.seed(records);
  };
  reset();
  const events = createEventRecorder();
  const app = createApp({
    db,
    store,
    api: {
      auth: createJwtVerifier({ hs256Secret: secret }),
      rateLimit: false,
      onEvent: events.record,
      clock: { now: () => new Date(Math.floor(Date.now() / 1000) * 1000) },
    },
  });
  try {
    const report = await checkApiContract({
      target: { handler: app, reset },
      basePath: '/api',
      seed,
      auth: { hs256Secret: secret },
      events,
      only: ['concurrent'],
      rngSeed: 7,
      shrinkTimeLimitMs: 1000,
    });
    const races = report.results.find((r) => r.name === 'concurrent.races');
    expect(races?.rule, formatReport(report)).toBe('linearizable');
    expect(races?.race?.record.kind).toBe('shift');
    expect(races?.race?.summary).toMatch(/each emitted shift\.deleted .* \(a lost update\)$/);
  } finally {
    await sqlite.close();
  }
});
