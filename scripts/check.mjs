#!/usr/bin/env node
// `pnpm check`: every check and every test. The static checks are single-threaded programs
// (tsc, TypeDoc, biome, redocly, knip), so they run in two lanes at once, one per core of a
// 2-core machine, each lane in order; the tests (`pnpm test:all`) run once both lanes passed, as
// they use the builds the second lane makes. A failure stops the other lane and fails the check.
//
// The package lint (publint on each packed package) runs in the packaging test, on the packages
// exactly as npm installed them from their tarballs (test/packaging): `pnpm package:lint` still
// runs it on its own.
import { spawn } from 'node:child_process';

const lanes = [
  // The workspace's TypeScript: the root's, then every package's, examples' and tests'.
  [['run', 'typecheck']],
  // The builds the tests read, then what reads them (knip reads the declarations), then the rest.
  [
    ['-r', 'run', 'build'],
    ['run', 'deps:check'],
    ['run', 'docs'],
    ['run', 'lint'],
    ['run', 'spec:lint'],
  ],
];

/** @type {Set<import('node:child_process').ChildProcess>} */
const running = new Set();

/**
 * Runs `pnpm <args>`; resolves with its exit code.
 * @param {string[]} args
 * @returns {Promise<number>}
 */
function pnpm(args) {
  console.log(`\n> pnpm ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn('pnpm', args, { stdio: 'inherit', detached: true });
    running.add(child);
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve(code ?? (signal === null ? 1 : 128));
    });
  });
}

/** Stops what still runs (each child leads a process group of its own). */
function stopAll() {
  for (const child of running) {
    try {
      process.kill(-(child.pid ?? 0), 'SIGTERM');
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
    stopAll();
    process.exit(code);
  });
}

let failed = 0;
await Promise.all(
  lanes.map(async (steps) => {
    for (const args of steps) {
      if (failed !== 0) return;
      const code = await pnpm(args);
      if (code !== 0 && failed === 0) {
        failed = code;
        console.error(`\npnpm ${args.join(' ')} failed (exit ${code}): stopping the other checks`);
        stopAll();
      }
    }
  }),
);
if (failed !== 0) process.exit(failed);
process.exit(await pnpm(['run', 'test:all']));
