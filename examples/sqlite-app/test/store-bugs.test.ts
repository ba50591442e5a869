// Each of the bugs users write in a store of their own (issue 32's table), switched on in this
// example store, is caught by the conformance suite, under a test whose name and message name the
// cause. The suite runs in a child vitest process (sqlite-store.test.ts with SQLITE_STORE_BUGS
// set), whose JSON report this reads: its failures must not fail this run.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_BUGS, type StoreBug } from '../src/sqlite-store.js';

interface Assertion {
  readonly ancestorTitles: readonly string[];
  readonly title: string;
  readonly status: 'passed' | 'failed' | 'skipped' | 'pending' | 'todo';
  readonly failureMessages: readonly string[];
}

const app = fileURLToPath(new URL('../', import.meta.url));
// vitest's command, as its package's bin names it.
const vitestBin = join(
  dirname(createRequire(import.meta.url).resolve('vitest/package.json')),
  'vitest.mjs',
);
let report: readonly Assertion[] = [];
let temporary: string | undefined;

beforeAll(async () => {
  temporary = await mkdtemp(join(tmpdir(), 'sqlite-store-bugs-'));
  const output = join(temporary, 'report.json');
  const exit = await new Promise<number | null>((resolve) => {
    execFile(
      process.execPath,
      [
        vitestBin,
        'run',
        '--config',
        'vitest.config.ts',
        'test/sqlite-store.test.ts',
        '--reporter=json',
        `--outputFile=${output}`,
      ],
      { cwd: app, env: { ...process.env, SQLITE_STORE_BUGS: STORE_BUGS.join(',') } },
      (error) => resolve(error === null ? 0 : typeof error.code === 'number' ? error.code : null),
    );
  });
  expect(exit, 'the suite with the bugs switched on fails').toBe(1);
  const json = JSON.parse(await readFile(output, 'utf8')) as {
    testResults: { assertionResults: Assertion[] }[];
  };
  report = json.testResults.flatMap((file) => file.assertionResults);
}, 120_000);

afterAll(async () => {
  if (temporary !== undefined) await rm(temporary, { recursive: true, force: true });
});

/** The tests of the suite run over the store with `bug` switched on. */
const testsWith = (bug: StoreBug | undefined) =>
  report.filter((test) =>
    test.ancestorTitles[0]?.endsWith(bug === undefined ? 'own tables' : `the bug ${bug}`),
  );
const name = (test: Assertion) => [...test.ancestorTitles.slice(1), test.title].join(' > ');
const failed = (bug: StoreBug) => testsWith(bug).filter((test) => test.status === 'failed');

/** For each bug, a test that must fail, and what its message must say. */
const CAUGHT: Record<StoreBug, { readonly test: RegExp; readonly message: RegExp }> = {
  'external-id-ignores-venue': {
    test: /^reads > find an employee by external id in its own restaurant only$/,
    message:
      /employees\.find\(restaurant \S+, external id "PAYROLL:10042"\) returned record \S+ of restaurant \S+; expected null: an external id names a record within its restaurant only/,
  },
  'update-leaves-columns-out': {
    test: /^records given back as stored, field by field > employees of every shape/,
    message:
      /employees\.write of the (archive|unarchive) returned `modifiedDate` `"[^`]*"`; the record \1 produced has `"2026-03-01T12:01:00\.000Z"`/,
  },
  'no-version-check': {
    test: /^compare-and-set writes > employees\.write of an unarchive > at a stale version: VersionConflict, and nothing changed$/,
    message:
      /employees\.write of an unarchive at version 1 \(the store has version 2\) succeeded with .*; expected VersionConflict/,
  },
  'shift-no-version-check': {
    test: /^compare-and-set writes > shifts\.write of a delete > at a stale version: VersionConflict, and nothing changed$/,
    message:
      /shifts\.write of a delete at version 1 \(the store has version 2\) succeeded with .*; expected VersionConflict/,
  },
  'archive-without-deleted-date': {
    test: /^records given back as stored, field by field > employees of every shape/,
    message:
      /employees\.write of the archive returned `deletedDate` absent; the record archive produced has `"2026-03-01T12:01:00\.000Z"`/,
  },
  'empty-job-list-as-absent': {
    test: /^records given back as stored, field by field > employees of every shape/,
    message:
      /employees\.find\(restaurant \S+, GUID \S+\) returned `jobReferences` absent; the seeded record has `\[\]`/,
  },
  'missing-as-undefined': {
    test: /^reads > find an employee by external id in its own restaurant only$/,
    message:
      /employees\.find\(restaurant \S+, external id "PAYROLL:10042"\) answered ok\(undefined\); expected a record or ok\(null\)/,
  },
};

it('passes every test on the store without bugs, in the same run', () => {
  expect(testsWith(undefined).length).toBeGreaterThan(40);
  expect(
    testsWith(undefined)
      .filter((test) => test.status !== 'passed')
      .map(name),
  ).toEqual([]);
});

describe.each(STORE_BUGS)('the store with the bug %s', (bug) => {
  it('fails the suite under a test that names the cause, with a message that says what came back', () => {
    const { test, message } = CAUGHT[bug];
    const naming = failed(bug).filter((failure) => test.test(name(failure)));
    expect(naming.map(name), `the failed tests: ${failed(bug).map(name).join('; ')}`).not.toEqual(
      [],
    );
    expect(naming.flatMap((failure) => failure.failureMessages).join('\n')).toMatch(message);
  });

  it('gives no failure without its call and value (no bare "Called _unsafeUnwrap on an Err")', () => {
    const messages = failed(bug).flatMap((failure) => failure.failureMessages);
    expect(messages.filter((text) => /_unsafeUnwrap/.test(text))).toEqual([]);
  });
});

it('names every finder that answers ok(undefined), never a TypeError', () => {
  const messages = failed('missing-as-undefined').flatMap((failure) => failure.failureMessages);
  for (const finder of ['employees.find', 'shifts.find', 'restaurants.findByGuid']) {
    expect(
      messages.some(
        (text) => text.includes(`${finder}(`) && text.includes('answered ok(undefined)'),
      ),
      `a failure naming ${finder}`,
    ).toBe(true);
  }
  expect(messages.filter((text) => /TypeError|Cannot read properties/.test(text))).toEqual([]);
});

it('catches employee writes without the version check in the races once calls are deferred, though not on the store as given: it answers at once', () => {
  const race = (form: string) =>
    testsWith('no-version-check').find(
      (test) =>
        test.ancestorTitles.at(-1)?.startsWith(form) &&
        test.title.startsWith('let exactly one of 8 concurrent unarchives succeed'),
    )?.status;
  expect(race('races, on the store as given')).toBe('passed');
  expect(race('races, each call and answer deferred by a turn of the event loop')).toBe('failed');
  expect(race('races, each call and answer deferred by 0 to 3 turns')).toBe('failed');
});
