#!/usr/bin/env node
// `pnpm test:all`: every test of every project. The coverage thresholds (vitest.config.ts) are
// those of the domain rules and the seed file's parser, measured by the tests of their own
// packages, core and seed-file. V8's coverage slows every test process it is taken in (by about
// a sixth, measured on test/http/statuses.test.ts), so it is taken there only: those two
// projects run first, with coverage, then every other project without it. With arguments (files,
// `-t`), one run of vitest with them, without coverage.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const MEASURED = ['core', 'seed-file'];

/** @param {string[]} args */
function vitest(args) {
  const { status } = spawnSync('pnpm', ['exec', 'vitest', 'run', ...args], { stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}

const extra = process.argv.slice(2);
if (extra.length > 0) {
  vitest(extra);
  process.exit(0);
}

// The projects of vitest.config.ts, by the name each config gives itself.
const configs = [
  ...readdirSync('packages').map((folder) => `packages/${folder}/vitest.config.ts`),
  'examples/sqlite-app/vitest.config.ts',
  'test/vitest.config.ts',
  'test/packaging/vitest.config.ts',
];
const names = configs.map((file) => {
  const name = /\bname: '([^']+)'/.exec(readFileSync(file, 'utf8'))?.[1];
  if (name === undefined) throw new Error(`${file} names no project (test.name)`);
  return name;
});
for (const name of MEASURED) {
  if (!names.includes(name)) throw new Error(`no project ${name}`);
}

vitest(['--coverage', ...MEASURED.flatMap((name) => ['--project', name])]);
vitest(names.filter((name) => !MEASURED.includes(name)).flatMap((name) => ['--project', name]));
