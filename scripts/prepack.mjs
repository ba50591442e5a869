#!/usr/bin/env node
// Every package's `prepack`, which `pnpm pack` and `pnpm publish` run in the package's folder: a
// fresh build of what it ships, dist/ removed and then the package's `build` script run, here
// rather than through `pnpm run clean && pnpm run build` (two more pnpm processes for each
// package). A package whose `prepare` script is its build (the types package, which
// `pnpm install` builds) is built by that: pnpm runs `prepare` right after `prepack`.
//
// A package whose build `pnpm check` or `npm start` stamped, and is current (its sources and
// dist/ as the stamp says, scripts/bootstrap.mjs), ships that build: it is what a clean build
// would make, with nothing left over.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { builtCurrent } from './bootstrap.mjs';

const { name, scripts } = JSON.parse(readFileSync('package.json', 'utf8'));
if (builtCurrent(process.cwd())) {
  console.log(`${name}: dist/ is the current stamped build; packed as it is`);
  process.exit(0);
}
rmSync('dist', { recursive: true, force: true });
if (scripts.prepare !== scripts.build) {
  // The script as pnpm would run it: in a shell, with the package's node_modules/.bin on the PATH
  // that pnpm gave this process.
  const { status, signal } = spawnSync(scripts.build, { shell: true, stdio: 'inherit' });
  process.exit(status ?? (signal === null ? 1 : 128));
}
