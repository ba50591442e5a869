#!/usr/bin/env node
// `pnpm check`: every check and every test, in two lanes at once. The tests start as soon as the
// packages are built (they read the builds), without waiting for the static checks, which are
// single-threaded programs (tsc, TypeDoc, knip, biome, redocly) and run meanwhile, in order, in
// the other lane: the tests spend much of their time waiting on the processes, servers and
// databases they start, which leaves room for them. Any failure stops the static checks still
// running and fails the check (tests under way finish first: each stops what it started).
//
// The package lint (publint on each packed package) runs in the packaging test, on the packages
// exactly as npm installed them from their tarballs (test/packaging): `pnpm package:lint` still
// runs it on its own.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOf } from './bootstrap.mjs';
import { readTimes, slowestFiles, TIMES_FILE } from './slowest-test-files.mjs';

/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();

/** Where the tests' runs note each file's time (scripts/slowest-test-files.mjs). */
const times = join(tmpdir(), `workforce-kit-test-times-${process.pid}.jsonl`);

/**
 * Runs `pnpm <args>`; resolves with its exit code.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
function pnpm(args) {
  console.log(`\n> pnpm ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn('pnpm', args, {
      stdio: 'inherit',
      detached: true,
      env: { ...process.env, [TIMES_FILE]: times },
    });
    running.add(child);
    if (args.includes('test:all')) tests = child;
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal === null ? 1 : 128));
    });
  });
}

/**
 * The tests' run, once started: a failed static check lets it finish (see below).
 * @type {import('node:child_process').ChildProcess | undefined}
 */
let tests;

/**
 * Stops what still runs (each child leads a process group of its own).
 * @param {NodeJS.Signals} signal
 * @param {{ tests: boolean }} which - whether to stop the tests' run too
 */
function stopAll(signal, which) {
  for (const child of running) {
    if (child === tests && !which.tests) continue;
    try {
      process.kill(-(child.pid ?? 0), signal);
    } catch {
      // already gone
    }
  }
}

// Each step leads a process group of its own (so that a failure stops all of a lane's programs),
// which a terminal's Ctrl-C no longer reaches: pass the stop on.
for (const [signal, code] of /** @type {const} */ ([
  ['SIGINT', 130],
  ['SIGTERM', 143],
])) {
  process.once(signal, () => {
    stopAll(signal, { tests: true });
    process.exit(code);
  });
}

let failed = 0;

/**
 * Runs the steps in order, each once the one before passed (and nothing failed elsewhere).
 * @param {string[][]} steps
 * @returns {Promise<boolean>} whether every step passed
 */
async function lane(steps) {
  for (const args of steps) {
    if (failed !== 0) return false;
    const code = await pnpm(args);
    if (code !== 0) {
      if (failed === 0) {
        failed = code;
        // The static checks stop at once; tests under way finish, so that each stops what it
        // started (servers, PostgreSQL clusters, browsers) as it ends.
        console.error(`\npnpm ${args.join(' ')} failed (exit ${code}): stopping the other checks`);
        stopAll('SIGTERM', { tests: false });
      }
      return false;
    }
  }
  return true;
}

// The builds the tests read (and knip reads the declarations of), stamped as `npm start` stamps its
// own: the tests that run `npm start` (test/pglite) then find the server built, rather than build it
// again (half a minute of CPU) into the dist folders the other tests are reading; and the tests
// that start the server and the contract kit's command as processes run their builds, rather than
// their sources through tsx (test/support/reference-server.ts).
const stamped = ['@workforce-kit/server', '@workforce-kit/contract-testing'].map(buildOf);
const built = lane([['-r', 'run', 'build']]).then((ok) => {
  if (ok) for (const build of stamped) build.record();
  return ok;
});
await Promise.all([
  built.then((ok) => ok && lane([['run', 'test:all']])),
  (async () => {
    // The branch's commit messages, then the workspace's TypeScript: the root's, then every
    // package's, examples' and tests', then the TSDoc examples (scripts/typecheck.mjs).
    if (
      !(await lane([
        ['run', 'commits:check'],
        ['run', 'typecheck'],
      ]))
    ) {
      return;
    }
    if (!(await built)) return;
    await lane([
      ['run', 'deps:check'],
      // The API reference's checks (every export documented, every link resolved), without
      // writing its HTML, which `pnpm docs` alone writes.
      ['run', 'docs', '--emit', 'none'],
      ['run', 'lint'],
      ['run', 'spec:lint'],
    ]);
  })(),
]);
// The slowest test files, last, where a file that became slow is seen.
const measured = readTimes(times);
rmSync(times, { force: true });
if (measured.length > 0) console.log(slowestFiles(measured));
process.exit(failed);
