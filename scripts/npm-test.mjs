#!/usr/bin/env node
// `npm test` on a fresh clone with only Node.js and npm: pnpm, the dependencies and the system
// packages the tests drive, then every check (`pnpm check`).
import {
  ensurePnpm,
  ensureSystemPackages,
  installDependenciesIfChanged,
  run,
  TEST_SYSTEM_PACKAGES,
} from './bootstrap.mjs';

ensurePnpm();
ensureSystemPackages(TEST_SYSTEM_PACKAGES);
installDependenciesIfChanged();
run('pnpm', ['run', 'check']);
