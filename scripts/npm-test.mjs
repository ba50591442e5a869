#!/usr/bin/env node
// `npm test` on a fresh clone with only Node.js and npm: pnpm, the dependencies and the system
// packages the tests drive, then every check (`pnpm check`).
import { ensurePnpm, ensureSystemPackages, installDependencies, run } from './bootstrap.mjs';

ensurePnpm();
ensureSystemPackages({ chromium: 'chromium', curl: 'curl' });
installDependencies();
run('pnpm', ['run', 'check']);
